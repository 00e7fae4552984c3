#pragma once
// One HTTP connection's I/O (server.cpp's sessions) on a beast::tcp_stream: every read and write
// has its own deadline (writes the stream's expires_at, reads the session's read timer: see
// Connection::read_by), and a request's head is read within its deadline and under the header
// cap. Included by the server's sources only: it brings Asio and Beast.
#include <array>
#include <chrono>
#include <cstddef>
#include <memory_resource>
#include <cstdint>
#include <memory>
#include <string>

#include <boost/asio/any_io_executor.hpp>
#include <boost/asio/as_tuple.hpp>
#include <boost/asio/awaitable.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/use_awaitable.hpp>
#include <boost/beast/core/error.hpp>
#include <boost/beast/core/flat_buffer.hpp>
#include <boost/beast/core/tcp_stream.hpp>

#include "wire.hpp"

namespace mediagen::http::session_io {

namespace asio = boost::asio;
namespace beast = boost::beast;
namespace bhttp = boost::beast::http;
inline constexpr auto use_tuple = asio::as_tuple(asio::use_awaitable);

using wire::Parser;
using Clock = std::chrono::steady_clock;
using TimePoint = Clock::time_point;
using std::chrono::milliseconds;

// How long an upload may take: see ServerOptions' stream_* fields.
struct UploadPacing {
  milliseconds stall{10'000};
  milliseconds slack{60'000};
  std::uint64_t min_bytes_per_second = 4096;
};

// State shared by the acceptor, shutdown and a session; touched on the session's executor only.
struct SessionState {
  explicit SessionState(const asio::any_io_executor& ex) : executor(ex), read_timer(ex) {}

  asio::any_io_executor executor;
  beast::tcp_stream* stream = nullptr;  // null once the session ended or handed its socket over
  bool busy = false;
  bool body_unread = false;  // the last answer went out before its request's body was read
  // Reads' deadline (Connection::read_by): max while no read waits. The timer may wait for an
  // earlier time than the deadline (`timer_at`, max when it does not wait) and then waits again.
  TimePoint read_deadline = TimePoint::max();
  TimePoint timer_at = TimePoint::max();
  asio::steady_timer read_timer;
};

class Connection {
 public:
  Connection(beast::tcp_stream& stream, std::shared_ptr<SessionState> state);

  beast::tcp_stream& stream() { return stream_; }
  SessionState& state() { return *state_; }
  // Room for a response's head, kept from one answer to the next: its bytes, and the memory its
  // fields are built in (free again once that answer's message is gone).
  std::string& scratch() { return scratch_; }
  std::pmr::memory_resource* head_memory() {
    head_memory_.release();
    return &head_memory_;
  }

  // Some bytes of a request into `buffer` (the keep-alive wait for the next one), by `deadline`.
  asio::awaitable<beast::error_code> read_some(beast::flat_buffer& buffer, TimePoint deadline);

  // Reads a request's head into `parser` within `deadline` and `header_limit` bytes however it
  // arrives; folded header lines are refused. An error code says why it stopped short.
  asio::awaitable<beast::error_code> read_head(beast::flat_buffer& buffer, Parser& parser, TimePoint deadline,
                                               std::size_t header_limit);

  // The body: all of it (`whole`) or the next piece the parser takes, by `until`.
  asio::awaitable<beast::error_code> read_body(beast::flat_buffer& buffer, Parser& parser, TimePoint until,
                                               bool whole);
  // "100 Continue", within the body's deadline.
  asio::awaitable<beast::error_code> write_continue(TimePoint until);

  // After an answer that refused a body unread (413, a refused upload), the client may still be
  // sending it. Closing at once would reset the connection, and a reset can discard the answer
  // before the client reads it; so the rest is read and dropped for a short while first, as
  // nginx's lingering close does. Bounded in time and bytes.
  asio::awaitable<void> linger();

 private:
  // Reads are cut at their deadline by the session's read timer, which cancels them and leaves
  // the socket open (a body that stopped coming is still answered, 408 or 400), where a
  // tcp_stream expiry would close it. Moving the deadline later is a store: the timer, when it
  // fires before it, waits again. So the keep-alive wait of each request arms no timer: the
  // stream's expiry there (a timer armed and cancelled per request) cost about a fifth of the
  // healthz throughput on a loaded 2-core machine. Writes keep the stream's own expiry.
  void read_by(TimePoint deadline);
  void read_done() { state_->read_deadline = TimePoint::max(); }

  beast::tcp_stream& stream_;
  std::shared_ptr<SessionState> state_;
  std::string scratch_;
  std::array<std::byte, 1024> head_arena_;
  std::pmr::monotonic_buffer_resource head_memory_{head_arena_.data(), head_arena_.size()};
};

// Limits on writing an answer (ServerOptions'). A body in one string goes out within `timeout`;
// a streamed one has no deadline as a whole: each write must move bytes within `timeout`, and
// the whole body must go within `slack` + size / `min_bytes_per_second` (an unsized one: within
// `slack` + the source's max_seconds()).
struct WriteLimits {
  milliseconds timeout{10'000};
  milliseconds slack{60'000};
  std::uint64_t min_bytes_per_second = 4096;
};

// Writes `response` through Beast's serializer: the head, then its body in one piece or the
// source's pieces as the client takes them (chunked when unsized; bare and ended by the close for
// HTTP/1.0). HEAD gets the head alone. False when the connection must close: a failed write or
// piece, a stall, the cap, or a body only the close can end.
asio::awaitable<bool> write_response(Connection& conn, Response& response, unsigned version, bool keep_alive,
                                     bool head, const WriteLimits& limits);

}  // namespace mediagen::http::session_io
