// The read deadlines of a connection (session_read.cpp): a read past its deadline is cancelled and
// the socket stays open for an answer; a deadline moved later is kept however the timer was armed.
#include <gtest/gtest.h>

#include <boost/asio/co_spawn.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/read.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/write.hpp>
#include <exception>
#include <memory>
#include <string>

#include "http/session_io.hpp"

namespace mediagen::http::session_io {
namespace {

using tcp = asio::ip::tcp;

struct Pair {
  asio::io_context io;
  tcp::socket client{io};
  std::unique_ptr<beast::tcp_stream> stream;
  std::shared_ptr<SessionState> state = std::make_shared<SessionState>(io.get_executor());

  Pair() {
    tcp::acceptor acceptor(io, tcp::endpoint(asio::ip::make_address("127.0.0.1"), 0));
    client.connect(acceptor.local_endpoint());
    tcp::socket server_side(io);
    acceptor.accept(server_side);
    stream = std::make_unique<beast::tcp_stream>(std::move(server_side));
    state->stream = stream.get();
  }

  void run(asio::awaitable<void> task) {
    asio::co_spawn(io, std::move(task), [](std::exception_ptr e) {
      if (e) std::rethrow_exception(e);
    });
    io.run();
  }
};

TEST(SessionRead, AReadPastItsDeadlineIsCancelledAndTheSocketStaysOpen) {
  Pair p;
  Connection conn(*p.stream, p.state);
  beast::error_code ec;
  Clock::duration took{};
  p.run([&]() -> asio::awaitable<void> {
    beast::flat_buffer buffer;
    const auto start = Clock::now();
    ec = co_await conn.read_some(buffer, start + milliseconds(200));
    took = Clock::now() - start;
    // An answer can still follow (an upload's 408).
    co_await asio::async_write(p.stream->socket(), asio::buffer(std::string("late")), asio::use_awaitable);
    p.state->stream = nullptr;
    p.state->read_timer.cancel();
  }());
  EXPECT_EQ(ec, asio::error::operation_aborted);
  EXPECT_GE(took, milliseconds(200));
  EXPECT_LT(took, milliseconds(3000));
  std::string got(4, '\0');
  asio::read(p.client, asio::buffer(got));
  EXPECT_EQ(got, "late");
}

// The timer waits for the first deadline; a later read's deadline, set while it waits, is a store
// that the timer honours when it fires early.
TEST(SessionRead, ADeadlineMovedLaterIsKept) {
  Pair p;
  Connection conn(*p.stream, p.state);
  beast::error_code first;
  beast::error_code second;
  Clock::duration took{};
  p.run([&]() -> asio::awaitable<void> {
    beast::flat_buffer buffer;
    asio::steady_timer send(p.io, milliseconds(100));
    send.async_wait([&](beast::error_code) { asio::write(p.client, asio::buffer(std::string("x"))); });
    const auto start = Clock::now();
    first = co_await conn.read_some(buffer, start + milliseconds(300));
    const auto again = Clock::now();
    second = co_await conn.read_some(buffer, again + milliseconds(600));
    took = Clock::now() - again;
    p.state->stream = nullptr;
    p.state->read_timer.cancel();
  }());
  EXPECT_FALSE(first);
  EXPECT_EQ(second, asio::error::operation_aborted);
  EXPECT_GE(took, milliseconds(600));
  EXPECT_LT(took, milliseconds(3000));
}

}  // namespace
}  // namespace mediagen::http::session_io
