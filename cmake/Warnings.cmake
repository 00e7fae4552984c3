# Applied per target through mediagen_warnings(target): third-party headers stay quiet.
function(mediagen_warnings target)
  target_compile_options(${target} PRIVATE -Wall -Wextra -Wpedantic -Wshadow=local
    -Wnon-virtual-dtor -Wcast-align -Wunused -Woverloaded-virtual
    -Wno-missing-field-initializers)
endfunction()
