#pragma once
// The seam between the connection (session.cpp, Beast) and whatever answers requests.
#include <cstddef>
#include <string_view>

#include <boost/asio/awaitable.hpp>

#include "mediagen/http/message.hpp"

namespace mediagen::http {

enum class BodyStatus { ok, too_large, failed };

class Exchange {
 public:
  virtual ~Exchange() = default;
  virtual const RequestView& request() const = 0;
  virtual std::string_view peer_ip() const = 0;
  // Declared body size, when the client declared one (chunked bodies have none).
  virtual std::optional<std::uint64_t> content_length() const = 0;
  virtual bool has_body() const = 0;
  // Reads the whole body, refusing more than `limit` bytes; sends "100 Continue" when asked.
  virtual boost::asio::awaitable<BodyStatus> read_body(std::size_t limit) = 0;
};

class ExchangeHandler {
 public:
  virtual ~ExchangeHandler() = default;
  virtual boost::asio::awaitable<Response> handle(Exchange& exchange) = 0;
  // A request the parser refused (bad syntax, header too large): answer without a pipeline.
  virtual Response refuse(int status) = 0;
};

}  // namespace mediagen::http
