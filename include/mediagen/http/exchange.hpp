#pragma once
// The seam between the connection (session.cpp, Beast) and whatever answers requests.
#include <chrono>
#include <cstddef>
#include <functional>
#include <string_view>

#include <boost/asio/awaitable.hpp>

#include "mediagen/http/message.hpp"

namespace mediagen::http {

// stopped: the piece sink refused a piece, so the rest was not read (the connection then closes).
// timed_out: the body stopped coming in time (a stall, the whole body's cap, or the patience).
enum class BodyStatus { ok, too_large, failed, stopped, timed_out };

// Takes one piece of a body as it arrives; false stops the reading.
using BodyPieceSink = std::function<bool(std::string_view piece)>;
// Asked before each wait for a piece: how long the reader may still wait for one.
using BodyPatience = std::function<std::chrono::milliseconds()>;

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
  // Reads the body piece by piece into `sink`, never holding more than one piece (uploads); the
  // same limit as read_body. The body is not kept: request().body() stays empty. A wait for a
  // piece longer than `patience` (when given) ends the reading with timed_out. This default
  // reads it whole first (test exchanges); the server's exchange streams.
  virtual boost::asio::awaitable<BodyStatus> read_body_pieces(std::size_t limit, BodyPieceSink sink,
                                                              BodyPatience /*patience*/ = {}) {
    BodyStatus status = co_await read_body(limit);
    if (status != BodyStatus::ok) co_return status;
    if (std::string_view body = request().body(); !body.empty() && !sink(body)) co_return BodyStatus::stopped;
    co_return BodyStatus::ok;
  }
};

class ExchangeHandler {
 public:
  virtual ~ExchangeHandler() = default;
  virtual boost::asio::awaitable<Response> handle(Exchange& exchange) = 0;
  // A request the parser refused (bad syntax, header too large): answer without a pipeline.
  virtual Response refuse(int status) = 0;
};

}  // namespace mediagen::http
