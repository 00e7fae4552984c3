// The reading side of a connection (session_io.hpp).
#include <array>

#include <boost/beast/http/empty_body.hpp>
#include <boost/beast/http/error.hpp>
#include <boost/beast/http/read.hpp>
#include <boost/beast/http/write.hpp>

#include "session_io.hpp"

namespace mediagen::http::session_io {

namespace {

void wait_for_reads(const std::shared_ptr<SessionState>& state, TimePoint at) {
  state->timer_at = at;
  state->read_timer.expires_at(at);
  state->read_timer.async_wait([state](const beast::error_code& ec) {
    if (ec) return;  // moved earlier (another wait is on), or the session ended
    state->timer_at = TimePoint::max();
    if (!state->stream || state->read_deadline == TimePoint::max()) return;
    if (Clock::now() < state->read_deadline) return wait_for_reads(state, state->read_deadline);
    beast::error_code ignored;
    state->stream->socket().cancel(ignored);
  });
}

}  // namespace

Connection::Connection(beast::tcp_stream& stream, std::shared_ptr<SessionState> state)
    : stream_(stream), state_(std::move(state)) {}

void Connection::read_by(TimePoint deadline) {
  state_->read_deadline = deadline;
  if (deadline < state_->timer_at) wait_for_reads(state_, deadline);
}

asio::awaitable<beast::error_code> Connection::read_some(beast::flat_buffer& buffer, TimePoint deadline) {
  read_by(deadline);
  // Straight from the socket: the stream's own timer plays no part in reads.
  auto [ec, n] = co_await stream_.socket().async_read_some(buffer.prepare(8192), use_tuple);
  read_done();
  if (!ec) buffer.commit(n);
  co_return ec;
}

asio::awaitable<beast::error_code> Connection::read_head(beast::flat_buffer& buffer, Parser& parser, TimePoint deadline,
                                                         std::size_t header_limit) {
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
    if (auto rec = co_await read_some(buffer, deadline)) co_return rec;
  }
}

asio::awaitable<beast::error_code> Connection::read_body(beast::flat_buffer& buffer, Parser& parser, TimePoint until,
                                                         bool whole) {
  read_by(until);
  beast::error_code ec;
  if (whole) {
    auto [rec, n] = co_await bhttp::async_read(stream_, buffer, parser, use_tuple);
    ec = rec;
  } else {
    auto [rec, n] = co_await bhttp::async_read_some(stream_, buffer, parser, use_tuple);
    ec = rec;
  }
  read_done();
  co_return ec;
}

asio::awaitable<beast::error_code> Connection::write_continue(TimePoint until) {
  bhttp::response<bhttp::empty_body> interim{bhttp::status::continue_, 11};
  read_by(until);
  auto [ec, n] = co_await bhttp::async_write(stream_, interim, use_tuple);
  read_done();
  co_return ec;
}

asio::awaitable<void> Connection::linger() {
  constexpr milliseconds kLinger{2000};
  constexpr std::size_t kLingerBytes = std::size_t{16} << 20;
  std::array<char, 16384> scratch;
  std::size_t dropped = 0;
  read_by(Clock::now() + kLinger);
  while (dropped < kLingerBytes) {
    auto [ec, n] = co_await stream_.async_read_some(asio::buffer(scratch), use_tuple);
    if (ec) break;
    dropped += n;
  }
  read_done();
}

}  // namespace mediagen::http::session_io
