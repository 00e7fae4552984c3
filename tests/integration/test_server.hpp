#pragma once
// The real pipeline and HTTP server in-process on a free loopback port, with the routes a test
// registers: for route tests that talk HTTP over real sockets to real PostgreSQL and Redis.
#include <cstdint>
#include <functional>
#include <memory>
#include <string>

#include "mediagen/core/clock.hpp"
#include "mediagen/core/counters.hpp"

namespace mediagen::http {
class Router;
}
namespace mediagen::db {
class BlockingPool;
}

namespace mediagen::test {

struct TestServerOptions {
  std::string db_url;
  std::string redis_url;
  std::string redis_prefix;
};

class TestServer {
 public:
  using RegisterRoutes = std::function<void(http::Router&, db::BlockingPool&)>;

  // Starts serving before it returns. `clock` and `counters` must outlive the server.
  TestServer(const TestServerOptions& options, const Clock& clock, InfraCounters& counters,
             const RegisterRoutes& register_routes);
  ~TestServer();  // drains connections, stops the I/O thread and the blocking pool
  TestServer(const TestServer&) = delete;
  TestServer& operator=(const TestServer&) = delete;

  std::uint16_t port() const;

 private:
  struct Parts;
  std::unique_ptr<Parts> parts_;
};

}  // namespace mediagen::test
