#include "session_exchange.hpp"

#include <algorithm>
#include <string>

#include <boost/beast/http/error.hpp>

#include "mediagen/core/ascii.hpp"

namespace mediagen::http::session_io {

asio::awaitable<BodyStatus> SessionExchange::read_body(std::size_t limit) {
  if (parser_.is_done()) co_return BodyStatus::ok;
  if (auto started = co_await begin_body(limit, deadline_); started != BodyStatus::ok) co_return started;
  const beast::error_code ec = co_await conn_.read_body(buffer_, parser_, deadline_, true);
  if (ec == bhttp::error::body_limit) co_return BodyStatus::too_large;
  // A body that stopped coming is the client's pace, not malformed bytes: 408, not 400.
  if (ec) co_return Clock::now() >= deadline_ ? BodyStatus::timed_out : BodyStatus::failed;
  co_return BodyStatus::ok;
}

asio::awaitable<BodyStatus> SessionExchange::read_body_pieces(std::size_t limit, BodyPieceSink sink,
                                                              BodyPatience patience) {
  if (parser_.is_done()) co_return BodyStatus::ok;
  const TimePoint start = Clock::now();
  const std::uint64_t size = parser_.content_length().value_or(limit);
  const TimePoint cap = start + pacing_.slack +
                        milliseconds(size * 1000 / std::max<std::uint64_t>(pacing_.min_bytes_per_second, 1));
  if (auto started = co_await begin_body(limit, std::min(start + pacing_.stall, cap)); started != BodyStatus::ok) {
    co_return started;
  }
  while (!parser_.is_done()) {
    const TimePoint now = Clock::now();
    TimePoint until = std::min(now + pacing_.stall, cap);
    if (patience) until = std::min(until, now + patience());
    if (until <= now) co_return BodyStatus::timed_out;
    const beast::error_code ec = co_await conn_.read_body(buffer_, parser_, until, false);
    if (ec == bhttp::error::body_limit) co_return BodyStatus::too_large;
    if (ec && ec != bhttp::error::need_buffer) co_return Clock::now() >= until ? BodyStatus::timed_out : BodyStatus::failed;
    std::string& body = parser_.get().body();
    if (body.empty()) continue;
    const bool more = sink(body);
    body.clear();
    if (!more) co_return BodyStatus::stopped;
  }
  co_return BodyStatus::ok;
}

asio::awaitable<BodyStatus> SessionExchange::begin_body(std::size_t limit, TimePoint deadline) {
  if (auto n = parser_.content_length(); n && *n > limit) co_return BodyStatus::too_large;
  parser_.body_limit(limit);
  auto expect = parser_.get().find(bhttp::field::expect);
  if (expect == parser_.get().end() || !iequals_ascii(expect->value(), "100-continue")) co_return BodyStatus::ok;
  co_return co_await conn_.write_continue(deadline) ? BodyStatus::failed : BodyStatus::ok;
}

}  // namespace mediagen::http::session_io
