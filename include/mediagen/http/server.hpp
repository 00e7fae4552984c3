#pragma once
// An HTTP/1.1 listener: keep-alive, header and body limits, read and idle timeouts, a cap on
// connections, and a graceful shutdown that lets in-flight requests finish.
#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>

#include "mediagen/core/config.hpp"
#include "mediagen/http/exchange.hpp"
#include "mediagen/http/metrics.hpp"

namespace boost::asio {
class io_context;
}

namespace mediagen::http {

class UpgradeHandler;

struct ServerOptions {
  Endpoint listen;
  std::size_t max_connections = 10000;
  std::size_t header_limit_bytes = 8192;
  std::int64_t read_timeout_seconds = 10;
  std::int64_t idle_timeout_seconds = 60;
  // A body written in pieces (a file) has no deadline as a whole: each write must move some
  // bytes within read_timeout_seconds, and the whole body must be taken within
  // stream_slack_seconds + size / stream_min_bytes_per_second. At 4 KiB/s (32 kbit/s, below any
  // usable mobile link) that is far beyond an honest client's need (a 40 MB file: about 2.8
  // hours), yet a client that takes a byte now and then cannot hold a connection for ever.
  std::int64_t stream_min_bytes_per_second = 4096;
  std::int64_t stream_slack_seconds = 60;
  // With one I/O thread a session needs no strand: its coroutine is the only thing touching it.
  bool single_threaded = true;
  // Upgrade requests it wants leave HTTP and are handed over (the WebSocket endpoint); may be null.
  UpgradeHandler* upgrade = nullptr;
};

class Server {
 public:
  Server(boost::asio::io_context& ioc, ServerOptions options, ExchangeHandler& handler, Metrics& metrics);
  ~Server();
  Server(const Server&) = delete;
  Server& operator=(const Server&) = delete;

  // Binds and starts accepting; throws std::system_error when the address cannot be bound.
  void start();
  Endpoint bound() const;

  // Stops accepting, closes idle connections; busy ones close after their current response.
  void shutdown();
  std::size_t connections() const;
  std::size_t busy() const;

 private:
  struct Impl;
  std::shared_ptr<Impl> impl_;
};

}  // namespace mediagen::http
