# MEDIAGEN_SANITIZE: OFF; ON or address (AddressSanitizer + UndefinedBehaviorSanitizer); thread
# (ThreadSanitizer, for the concurrency tests: scripts/test --tsan).
if(MEDIAGEN_SANITIZE STREQUAL "thread")
  add_compile_options(-fsanitize=thread -fno-omit-frame-pointer)
  add_link_options(-fsanitize=thread)
elseif(MEDIAGEN_SANITIZE)
  add_compile_options(-fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=undefined)
  add_link_options(-fsanitize=address,undefined)
endif()
