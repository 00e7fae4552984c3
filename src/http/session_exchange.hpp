#pragma once
// The Exchange a request's pipeline reads its body through, on the server's connection.
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string_view>

#include "mediagen/http/exchange.hpp"
#include "session_io.hpp"

namespace mediagen::http::session_io {

class SessionExchange final : public Exchange {
 public:
  SessionExchange(Connection& conn, beast::flat_buffer& buffer, Parser& parser, std::string_view ip,
                  TimePoint deadline, UploadPacing pacing = {})
      : conn_(conn), buffer_(buffer), parser_(parser), view_(parser), ip_(ip), deadline_(deadline), pacing_(pacing) {}

  const RequestView& request() const override { return view_; }
  std::string_view peer_ip() const override { return ip_; }
  std::optional<std::uint64_t> content_length() const override {
    if (auto n = parser_.content_length()) return *n;
    return std::nullopt;
  }
  bool has_body() const override { return !parser_.is_done(); }

  // The whole body within the request's deadline.
  asio::awaitable<BodyStatus> read_body(std::size_t limit) override;

  // An upload is paced like a download (see ServerOptions): every read must bring bytes within
  // the stall time, the whole body must come within slack + size / minimum rate, and no wait may
  // outlast the caller's patience. Each piece is handed over and dropped, so one read's worth is
  // held at a time. A deadline that passes ends the reading with timed_out.
  asio::awaitable<BodyStatus> read_body_pieces(std::size_t limit, BodyPieceSink sink,
                                               BodyPatience patience = {}) override;

 private:
  // The declared size against the cap, the parser's limit, and "100 Continue" when asked.
  asio::awaitable<BodyStatus> begin_body(std::size_t limit, TimePoint deadline);

  Connection& conn_;
  beast::flat_buffer& buffer_;
  Parser& parser_;
  wire::BeastRequest view_;
  std::string_view ip_;
  TimePoint deadline_;
  UploadPacing pacing_;
};

}  // namespace mediagen::http::session_io
