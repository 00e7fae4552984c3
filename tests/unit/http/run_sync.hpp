#pragma once
// Test helper: runs a coroutine to its end on an io_context of its own and returns its value.
#include <boost/asio/awaitable.hpp>
#include <boost/asio/co_spawn.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/use_future.hpp>

namespace mediagen::http::testing {

template <class T>
T run_sync(boost::asio::awaitable<T> work) {
  boost::asio::io_context ioc;
  auto done = boost::asio::co_spawn(ioc, std::move(work), boost::asio::use_future);
  ioc.run();
  return done.get();
}

}  // namespace mediagen::http::testing
