# Applied per target through mediagen_warnings(target): third-party headers stay quiet.
function(mediagen_warnings target)
  target_compile_options(${target} PRIVATE -Wall -Wextra -Wpedantic -Wshadow=local
    -Wnon-virtual-dtor -Wcast-align -Wunused -Woverloaded-virtual
    -Wno-missing-field-initializers
    # GCC 12 reports false -Wrestrict positives inside std::string at -O2 (GCC bug 105329).
    -Wno-restrict
    # Asio's awaitable frames use their own operator new/delete pair; GCC 12 misreads it.
    -Wno-mismatched-new-delete)
endfunction()
