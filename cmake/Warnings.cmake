# Applied per target through mediagen_warnings(target): third-party headers stay quiet.
function(mediagen_warnings target)
  target_compile_options(${target} PRIVATE -Wall -Wextra -Wpedantic -Wshadow=local
    -Wnon-virtual-dtor -Wcast-align -Wunused -Woverloaded-virtual
    -Wno-missing-field-initializers
    # GCC 12 reports false -Wrestrict positives inside std::string at -O2 (GCC bug 105329).
    -Wno-restrict
    # Asio's awaitable frames use their own operator new/delete pair; GCC 12 misreads it.
    -Wno-mismatched-new-delete)
  # A unity build includes each source into its batch, so GCC takes a type in a source's
  # anonymous namespace for one defined in a header, and warns when a coroutine frame or a
  # lambda of another function holds it. Each source is its own unit without MEDIAGEN_UNITY.
  get_target_property(unity ${target} UNITY_BUILD)
  if(unity AND CMAKE_CXX_COMPILER_ID STREQUAL "GNU")
    target_compile_options(${target} PRIVATE -Wno-subobject-linkage)
  endif()
endfunction()
