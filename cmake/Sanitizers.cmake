# MEDIAGEN_SANITIZE: OFF; ON or address (AddressSanitizer + UndefinedBehaviorSanitizer); thread
# (ThreadSanitizer, for the concurrency tests: scripts/test --tsan).
if(MEDIAGEN_SANITIZE STREQUAL "thread")
  add_compile_options(-fsanitize=thread -fno-omit-frame-pointer)
  add_link_options(-fsanitize=thread)
elseif(MEDIAGEN_SANITIZE)
  add_compile_options(-fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=undefined)
  # Executables are linked at a fixed address: a position-independent one spends about 0.3 s of
  # every start relocating its 200+ MB, and the e2e tests start the server and its CLI hundreds
  # of times (test_orders_money: 129 s -> 113 s).
  add_link_options(-fsanitize=address,undefined -no-pie)
endif()
