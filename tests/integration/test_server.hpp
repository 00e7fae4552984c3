#pragma once
// A whole instance in-process (app::App, the wiring of `mediagen serve`) on free loopback ports,
// serving the routes a test registers instead of the domain routes: for route tests that talk
// HTTP over real sockets to real PostgreSQL and Redis. No workers run.
#include <cstdint>
#include <filesystem>
#include <functional>
#include <memory>
#include <string>
#include <thread>

#include "mediagen/core/clock.hpp"
#include "mediagen/core/config.hpp"
#include "mediagen/core/counters.hpp"

namespace mediagen::http {
class Router;
class Metrics;
}  // namespace mediagen::http
namespace mediagen::db {
class BlockingPool;
class AsyncPg;
}
namespace mediagen::cache {
class BanList;
}
namespace mediagen::app {
class App;
}

namespace mediagen::test {

struct TestServerOptions {
  std::string db_url;
  std::string redis_url;
  std::string redis_prefix;
};

class TestServer {
 public:
  using RegisterRoutes = std::function<void(http::Router&, db::BlockingPool&, db::AsyncPg&)>;

  // The settings of a test server, for a test to adjust: free loopback ports, one I/O thread,
  // two blocking-pool threads, 64 connections, a 60 s key cache, a ban threshold no test
  // reaches by accident, no workers; error bodies link {public_url}/docs.
  static Config config(const TestServerOptions& options);

  // Starts serving before it returns. `clock` and `counters` must outlive the server.
  TestServer(const TestServerOptions& options, const Clock& clock, InfraCounters& counters,
             const RegisterRoutes& register_routes);
  TestServer(Config config, const Clock& clock, InfraCounters& counters, const RegisterRoutes& register_routes);
  ~TestServer();  // drain(), then stops every thread of the instance
  TestServer(const TestServer&) = delete;
  TestServer& operator=(const TestServer&) = delete;

  std::uint16_t port() const;
  // Stops accepting, lets open connections close (up to two seconds), ends the I/O threads.
  void drain();
  std::size_t connections() const;  // open on the public listener
  cache::BanList& bans();
  http::Metrics& metrics();

 private:
  std::filesystem::path storage_dir_;  // the instance's result files, removed at the end
  std::unique_ptr<app::App> app_;
  std::thread io_thread_;
};

}  // namespace mediagen::test
