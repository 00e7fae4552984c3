#pragma once
// One HTTP connection's I/O (server.cpp's sessions): deadlines that the server's reaper enforces,
// the head of a request read within its deadline and under the header cap, and the Exchange the
// pipeline reads a body through. Included by server.cpp only: it brings Asio and Beast.
#include <array>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdint>
#include <algorithm>
#include <limits>
#include <optional>
#include <string>
#include <string_view>

#include <boost/asio/any_io_executor.hpp>
#include <boost/asio/as_tuple.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/use_awaitable.hpp>
#include <boost/asio/write.hpp>
#include <boost/beast/core/buffer_traits.hpp>
#include <boost/beast/core/buffers_suffix.hpp>
#include <boost/beast/core/flat_buffer.hpp>
#include <boost/beast/http/error.hpp>
#include <boost/beast/http/parser.hpp>
#include <boost/beast/http/read.hpp>
#include <boost/beast/http/string_body.hpp>

#include "mediagen/core/ascii.hpp"
#include "mediagen/http/exchange.hpp"
#include "wire.hpp"

namespace mediagen::http::session_io {

namespace asio = boost::asio;
namespace beast = boost::beast;
namespace bhttp = boost::beast::http;
using tcp = asio::ip::tcp;
inline constexpr auto use_tuple = asio::as_tuple(asio::use_awaitable);

using wire::BeastRequest;
using wire::Parser;

using SteadyMs = std::int64_t;
inline SteadyMs steady_ms() {
  return std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::steady_clock::now().time_since_epoch())
      .count();
}

// How long an upload may take: see ServerOptions' stream_* fields.
struct UploadPacing {
  SteadyMs stall_ms = 10'000;
  SteadyMs slack_ms = 60'000;
  std::uint64_t min_bytes_per_second = 4096;
};

// State shared by the acceptor, the deadline reaper and a session.
struct SessionState {
  asio::any_io_executor executor;
  tcp::socket* socket = nullptr;  // null once the session ended; touched on its executor only
  bool busy = false;
  bool body_unread = false;  // the last answer went out before its request's body was read
  std::atomic<SteadyMs> deadline{0};  // 0: no I/O waiting
};


// One connection's I/O with deadlines: the reaper cancels a socket whose deadline passed,
// so a slow or silent client cannot hold a connection, without a timer per operation.
class Connection {
 public:
  Connection(tcp::socket& socket, SessionState& state) : socket_(socket), state_(state) {}

  void arm(SteadyMs deadline) { state_.deadline.store(deadline, std::memory_order_relaxed); }
  void disarm() { state_.deadline.store(0, std::memory_order_relaxed); }
  tcp::socket& socket() { return socket_; }

  // Writes head + body; tries a non-blocking write first (the common case: no async op).
  asio::awaitable<bool> write(const std::string& head, const std::string& body, std::int64_t timeout_s) {
    std::array<asio::const_buffer, 2> bufs{asio::buffer(head), asio::buffer(body)};
    const std::size_t total = head.size() + body.size();
    beast::error_code ec;
    std::size_t n = socket_.write_some(bufs, ec);
    if (!ec && n == total) co_return true;
    if (ec && ec != asio::error::would_block && ec != asio::error::try_again) co_return false;
    std::string rest = head + body;
    rest.erase(0, ec ? 0 : n);
    arm(steady_ms() + timeout_s * 1000);
    auto [wec, wn] = co_await asio::async_write(socket_, asio::buffer(rest), use_tuple);
    disarm();
    co_return !wec;
  }

  // Writes `head`, then the source's pieces as the client takes them, one piece in memory at a
  // time. The deadline moves with every write that moves bytes (`stall_ms` after it) but never
  // past `cap`: a slow reader keeps its download, one that stopped reading loses the connection.
  // False when the connection must close: a failed piece, a stall, the cap, a reset.
  // An unsized source goes out chunked, or as bare pieces ended by the close (`close_delimited`,
  // for HTTP/1.0).
  asio::awaitable<bool> stream(const std::string& head, BodySource& source, SteadyMs stall_ms, SteadyMs cap,
                               bool close_delimited = false) {
    if (!source.sized()) co_return co_await stream_chunked(head, source, stall_ms, cap, close_delimited);
    std::uint64_t left = source.size();
    std::string_view unsent_head = head;
    do {
      std::string piece;
      if (left > 0) {
        std::optional<std::string> next = co_await source.next();
        if (!next || next->empty() || next->size() > left) co_return false;
        left -= next->size();
        piece = std::move(*next);
      }
      if (!co_await write_progressing({asio::buffer(unsent_head), asio::buffer(piece)}, stall_ms, cap)) co_return false;
      unsent_head = {};
    } while (left > 0);
    co_return true;
  }

 private:
  asio::awaitable<bool> write_progressing(std::array<asio::const_buffer, 2> bufs, SteadyMs stall_ms, SteadyMs cap) {
    beast::buffers_suffix<std::array<asio::const_buffer, 2>> rest(bufs);
    while (beast::buffer_bytes(rest) > 0) {
      const SteadyMs now = steady_ms();
      if (now >= cap) co_return false;
      arm(std::min(now + stall_ms, cap));
      auto [ec, n] = co_await socket_.async_write_some(rest, use_tuple);
      disarm();
      if (ec) co_return false;
      rest.consume(n);
    }
    co_return true;
  }

  // An unsized body in chunked transfer coding (RFC 9112 7.1): each piece as one chunk, then the
  // last chunk once the source says the body is complete. The wait for a piece is the source's
  // (bounded by it); only writes are armed, and nothing goes on past `cap`.
  asio::awaitable<bool> stream_chunked(const std::string& head, BodySource& source, SteadyMs stall_ms, SteadyMs cap,
                                       bool close_delimited) {
    if (!co_await write_progressing({asio::buffer(head), asio::const_buffer()}, stall_ms, cap)) co_return false;
    for (;;) {
      std::optional<std::string> next = co_await source.next();
      if (!next || steady_ms() >= cap) co_return false;
      if (close_delimited) {
        if (next->empty()) co_return true;
        if (!co_await write_progressing({asio::buffer(*next), asio::const_buffer()}, stall_ms, cap)) co_return false;
        continue;
      }
      if (next->empty()) {
        static constexpr std::string_view kLast = "0\r\n\r\n";
        co_return co_await write_progressing({asio::buffer(kLast), asio::const_buffer()}, stall_ms, cap);
      }
      std::array<char, 20> size_line{};
      const int n = std::snprintf(size_line.data(), size_line.size(), "%zx\r\n", next->size());
      next->append("\r\n");
      if (!co_await write_progressing({asio::buffer(size_line.data(), static_cast<std::size_t>(n)), asio::buffer(*next)},
                                      stall_ms, cap)) {
        co_return false;
      }
    }
  }

  tcp::socket& socket_;
  SessionState& state_;
};

// After an answer that refused a body unread (413, a refused upload), the client may still be
// sending it. Closing at once would reset the connection, and a reset can discard the answer
// before the client reads it; so the rest is read and dropped for a short while first, as
// nginx's lingering close does. Bounded in time and bytes.
inline asio::awaitable<void> linger(Connection& conn) {
  constexpr SteadyMs kLingerMs = 2000;
  constexpr std::size_t kLingerBytes = std::size_t{16} << 20;
  std::array<char, 16384> scratch;
  std::size_t dropped = 0;
  conn.arm(steady_ms() + kLingerMs);
  while (dropped < kLingerBytes) {
    auto [ec, n] = co_await conn.socket().async_read_some(asio::buffer(scratch), use_tuple);
    if (ec) break;
    dropped += n;
  }
  conn.disarm();
}

class SessionExchange final : public Exchange {
 public:
  SessionExchange(Connection& conn, beast::flat_buffer& buffer, Parser& parser, std::string_view ip,
                  SteadyMs deadline, UploadPacing pacing = {})
      : conn_(conn), buffer_(buffer), parser_(parser), view_(parser), ip_(ip), deadline_(deadline), pacing_(pacing) {}

  const RequestView& request() const override { return view_; }
  std::string_view peer_ip() const override { return ip_; }
  std::optional<std::uint64_t> content_length() const override {
    if (auto n = parser_.content_length()) return *n;
    return std::nullopt;
  }
  bool has_body() const override { return !parser_.is_done(); }

  asio::awaitable<BodyStatus> read_body(std::size_t limit) override {
    if (parser_.is_done()) co_return BodyStatus::ok;
    if (auto started = co_await begin_body(limit, deadline_); started != BodyStatus::ok) co_return started;
    conn_.arm(deadline_);
    auto [ec, n] = co_await bhttp::async_read(conn_.socket(), buffer_, parser_, use_tuple);
    conn_.disarm();
    if (ec == bhttp::error::body_limit) co_return BodyStatus::too_large;
    if (ec) co_return BodyStatus::failed;
    co_return BodyStatus::ok;
  }

  // An upload is paced like a download (see ServerOptions): every read must bring bytes within
  // the stall time, the whole body must come within slack + size / minimum rate, and no wait may
  // outlast the caller's patience. Each piece is handed over and dropped, so one read's worth is
  // held at a time. A deadline that passes ends the reading with timed_out.
  asio::awaitable<BodyStatus> read_body_pieces(std::size_t limit, BodyPieceSink sink,
                                               BodyPatience patience = {}) override {
    if (parser_.is_done()) co_return BodyStatus::ok;
    const SteadyMs start = steady_ms();
    const std::uint64_t size = parser_.content_length().value_or(limit);
    const SteadyMs cap = start + pacing_.slack_ms +
                         static_cast<SteadyMs>(size * 1000 / std::max<std::uint64_t>(pacing_.min_bytes_per_second, 1));
    if (auto started = co_await begin_body(limit, std::min(start + pacing_.stall_ms, cap)); started != BodyStatus::ok) {
      co_return started;
    }
    while (!parser_.is_done()) {
      const SteadyMs now = steady_ms();
      SteadyMs until = std::min(now + pacing_.stall_ms, cap);
      if (patience) until = std::min(until, now + patience().count());
      if (until <= now) co_return BodyStatus::timed_out;
      conn_.arm(until);
      auto [ec, n] = co_await bhttp::async_read_some(conn_.socket(), buffer_, parser_, use_tuple);
      conn_.disarm();
      if (ec == bhttp::error::body_limit) co_return BodyStatus::too_large;
      if (ec && ec != bhttp::error::need_buffer) co_return steady_ms() >= until ? BodyStatus::timed_out : BodyStatus::failed;
      std::string& body = parser_.get().body();
      if (body.empty()) continue;
      const bool more = sink(body);
      body.clear();
      if (!more) co_return BodyStatus::stopped;
    }
    co_return BodyStatus::ok;
  }

 private:
  // The declared size against the cap, the parser's limit, and "100 Continue" when asked.
  asio::awaitable<BodyStatus> begin_body(std::size_t limit, SteadyMs deadline) {
    if (auto n = parser_.content_length(); n && *n > limit) co_return BodyStatus::too_large;
    parser_.body_limit(limit);
    auto expect = parser_.get().find(bhttp::field::expect);
    if (expect == parser_.get().end() || !iequals_ascii(expect->value(), "100-continue")) co_return BodyStatus::ok;
    static constexpr std::string_view kContinue = "HTTP/1.1 100 Continue\r\n\r\n";
    conn_.arm(deadline);
    auto [ec, n] = co_await asio::async_write(conn_.socket(), asio::buffer(kContinue), use_tuple);
    conn_.disarm();
    co_return ec ? BodyStatus::failed : BodyStatus::ok;
  }

  Connection& conn_;
  beast::flat_buffer& buffer_;
  Parser& parser_;
  BeastRequest view_;
  std::string_view ip_;
  SteadyMs deadline_;
  UploadPacing pacing_;
};

// Reads a request's head into `parser` within `deadline` and `header_limit` bytes however it
// arrives; folded header lines are refused. An error code says why it stopped short.
inline asio::awaitable<beast::error_code> read_head(Connection& conn, beast::flat_buffer& buffer, Parser& parser,
                                                    SteadyMs deadline, std::size_t header_limit) {
  beast::error_code ec;
  std::size_t received_head = 0;
  wire::FoldDetector folds;
  for (;;) {
    std::size_t used = parser.put(buffer.data(), ec);
    const auto head_bytes = buffer.data();
    if (folds.feed(std::string_view(static_cast<const char*>(head_bytes.data()), used))) co_return bhttp::error::bad_field;
    buffer.consume(used);
    received_head += used;
    // The cap is on the whole head, however it arrived (the parser alone checks one buffer).
    if (received_head + (parser.is_header_done() ? 0 : buffer.size()) > header_limit) co_return bhttp::error::header_limit;
    if (parser.is_header_done() || (ec && ec != bhttp::error::need_more)) co_return ec;
    ec = {};
    conn.arm(deadline);
    auto [rec, n] = co_await conn.socket().async_read_some(buffer.prepare(8192), use_tuple);
    conn.disarm();
    if (rec) co_return rec;
    buffer.commit(n);
  }
}

}  // namespace mediagen::http::session_io
