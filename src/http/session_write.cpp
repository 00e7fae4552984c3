// The writing side of a connection (session_io.hpp): every head and body goes through Beast's
// serializer; a streamed body through a buffer_body, one piece of the source at a time.
#include <algorithm>
#include <array>
#include <optional>
#include <string>
#include <string_view>

#include <boost/asio/error.hpp>
#include <boost/asio/write.hpp>
#include <boost/beast/core/buffers_range.hpp>
#include <boost/beast/core/buffers_suffix.hpp>
#include <boost/beast/http/buffer_body.hpp>
#include <boost/beast/http/empty_body.hpp>
#include <boost/beast/http/error.hpp>
#include <boost/beast/http/serializer.hpp>
#include <boost/beast/http/write.hpp>

#include "session_io.hpp"

namespace mediagen::http::session_io {

namespace {

using wire::HeadFields;
using StreamMessage = bhttp::response<bhttp::buffer_body, HeadFields>;
using StreamSerializer = bhttp::response_serializer<bhttp::buffer_body, HeadFields>;
using HeadMessage = bhttp::response<bhttp::empty_body, HeadFields>;

// The head as Beast's serializer writes it, gathered into `out`: written beside its body as two
// buffers, it costs Asio and the kernel far less than the serializer's sequence of a buffer per
// line. Split, the serializer hands the whole head over at its first step; nothing follows it.
void serialize_head(HeadMessage& message, std::string& out) {
  bhttp::response_serializer<bhttp::empty_body, HeadFields> sr(message);
  sr.split(true);
  beast::error_code ec;
  sr.next(ec, [&](beast::error_code&, const auto& buffers) {
    for (const auto b : beast::buffers_range_ref(buffers)) out.append(static_cast<const char*>(b.data()), b.size());
  });
}

// A small answer usually fits the socket's buffer: one non-blocking write (the socket is in
// non-blocking mode) and no wait, so no timer is armed. What is left is written within `timeout`.
asio::awaitable<bool> write_whole(beast::tcp_stream& stream, const std::string& head, std::string_view body,
                                  milliseconds timeout) {
  const std::array<asio::const_buffer, 2> bufs{asio::buffer(head), asio::buffer(body)};
  beast::error_code ec;
  const std::size_t n = stream.socket().write_some(bufs, ec);
  if (!ec && n == head.size() + body.size()) co_return true;
  if (ec && ec != asio::error::would_block && ec != asio::error::try_again) co_return false;
  beast::buffers_suffix<std::array<asio::const_buffer, 2>> rest(bufs);
  rest.consume(n);
  stream.expires_after(timeout);
  auto [wec, written] = co_await asio::async_write(stream, rest, use_tuple);
  stream.expires_never();  // a read must not inherit the expiry: it would close the socket
  co_return !wec;
}

enum class Step { done, more, failed };

// Writes what the serializer holds: until the message is done, or its body wants the next piece.
// Each write must move bytes within `stall`, and none starts or lasts past `cap`: a slow reader
// keeps its download, one that stopped reading loses the connection.
asio::awaitable<Step> pump(beast::tcp_stream& stream, StreamSerializer& sr, milliseconds stall, TimePoint cap) {
  while (!sr.is_done()) {
    const TimePoint now = Clock::now();
    if (now >= cap) co_return Step::failed;
    stream.expires_at(std::min(now + stall, cap));
    auto [ec, n] = co_await bhttp::async_write_some(stream, sr, use_tuple);
    if (ec == bhttp::error::need_buffer) co_return Step::more;
    if (ec) co_return Step::failed;
  }
  co_return Step::done;
}

// A sized body: exactly size() bytes, the head leaving with the first piece. A piece is freed
// once written, before the next is read: holding two would make the allocator give pages back
// and fault them in again for every piece (measured: a quarter of a download's throughput).
asio::awaitable<bool> send_sized(beast::tcp_stream& stream, StreamSerializer& sr, bhttp::buffer_body::value_type& body,
                                 BodySource& source, milliseconds stall, TimePoint cap) {
  std::uint64_t left = source.size();
  body.more = left > 0;
  if (left == 0) co_return co_await pump(stream, sr, stall, cap) == Step::done;
  while (left > 0) {
    std::optional<std::string> piece = co_await source.next();
    if (!piece || piece->empty() || piece->size() > left) co_return false;
    left -= piece->size();
    body.data = piece->data();
    body.size = piece->size();
    body.more = left > 0;
    const Step step = co_await pump(stream, sr, stall, cap);
    body.data = nullptr;  // the serializer is done with the piece
    if (step == Step::failed) co_return false;
  }
  co_return true;
}

// An unsized body: the head at once (its first piece may be long in coming), then each piece
// (one chunk each, or bare for HTTP/1.0) until the source's empty piece ends it. The wait for a
// piece is the source's (bounded by it); nothing goes on past `cap`.
asio::awaitable<bool> send_unsized(beast::tcp_stream& stream, StreamSerializer& sr,
                                   bhttp::buffer_body::value_type& body, BodySource& source, milliseconds stall,
                                   TimePoint cap) {
  stream.expires_at(std::min(Clock::now() + stall, cap));
  if (auto [ec, n] = co_await bhttp::async_write_header(stream, sr, use_tuple); ec) co_return false;
  for (;;) {
    std::optional<std::string> piece = co_await source.next();
    if (!piece || Clock::now() >= cap) co_return false;
    body.data = piece->empty() ? nullptr : piece->data();
    body.size = piece->size();
    body.more = !piece->empty();  // an empty piece: the last chunk
    const Step step = co_await pump(stream, sr, stall, cap);
    body.data = nullptr;
    if (!body.more || step == Step::failed) co_return step == Step::done;
  }
}

asio::awaitable<bool> write_streamed(Connection& conn, Response& response, BodySource& source, unsigned version,
                                     bool keep_alive, const WriteLimits& limits) {
  beast::tcp_stream& stream = conn.stream();
  const bool sized = source.sized();
  const auto rate = std::max<std::uint64_t>(1, limits.min_bytes_per_second);
  const auto allowance = sized ? std::chrono::seconds(source.size() / rate) : std::chrono::seconds(source.max_seconds());
  const TimePoint cap = Clock::now() + limits.slack + allowance;
  StreamMessage message{wire::response_head(response, version, keep_alive,
                                            sized ? std::optional(source.size()) : std::nullopt, conn.head_memory())};
  message.body().data = nullptr;
  message.body().more = true;
  StreamSerializer sr(message);
  const bool sent = sized ? co_await send_sized(stream, sr, message.body(), source, limits.timeout, cap)
                          : co_await send_unsized(stream, sr, message.body(), source, limits.timeout, cap);
  stream.expires_never();  // a read must not inherit the expiry: it would close the socket
  // HTTP/1.0 has no chunked coding: an unsized body's end is the connection's close.
  co_return sent && (sized || version != 10);
}

}  // namespace

asio::awaitable<bool> write_response(Connection& conn, Response& response, unsigned version, bool keep_alive,
                                     bool head, const WriteLimits& limits) {
  BodySource* source = response.body_source.get();
  const bool chunked = source && !source->sized();
  if (chunked && version == 10) keep_alive = false;
  if (source && !head) co_return co_await write_streamed(conn, response, *source, version, keep_alive, limits);
  const std::optional<std::uint64_t> length =
      chunked ? std::nullopt : std::optional<std::uint64_t>(source ? source->size() : response.body.size());
  HeadMessage message{wire::response_head(response, version, keep_alive, length, conn.head_memory())};
  std::string& head_bytes = conn.scratch();
  head_bytes.clear();
  serialize_head(message, head_bytes);
  // HEAD: the head alone, its length that of the body a GET would get; nothing may follow it (not
  // even a chunked body's last chunk).
  co_return co_await write_whole(conn.stream(), head_bytes, head ? std::string_view() : response.body, limits.timeout);
}

}  // namespace mediagen::http::session_io
