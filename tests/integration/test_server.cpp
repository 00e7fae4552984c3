#include "test_server.hpp"

#include <boost/asio/io_context.hpp>
#include <chrono>
#include <thread>

#include "mediagen/auth/key_cache.hpp"
#include "mediagen/cache/ban_ladder.hpp"
#include "mediagen/db/blocking_pool.hpp"
#include "mediagen/http/metrics.hpp"
#include "mediagen/http/pipeline.hpp"
#include "mediagen/http/router.hpp"
#include "mediagen/http/server.hpp"

namespace mediagen::test {

using namespace std::chrono_literals;

// Declared first, destroyed last: the coroutine frames the I/O context still holds point into
// the rest.
struct TestServer::Parts {
  boost::asio::io_context ioc;
  cache::BanList bans;
  std::unique_ptr<http::Router> router;
  std::unique_ptr<http::Metrics> metrics;
  std::unique_ptr<cache::BanLadder> ladder;
  std::unique_ptr<auth::KeyCache> keys;
  std::unique_ptr<db::BlockingPool> pool;
  std::unique_ptr<http::Pipeline> pipeline;
  std::unique_ptr<http::Server> server;
  std::thread io_thread;
  std::uint16_t port = 0;
};

TestServer::TestServer(const TestServerOptions& options, const Clock& clock, InfraCounters& counters,
                       const RegisterRoutes& register_routes)
    : parts_(std::make_unique<Parts>()) {
  Parts& p = *parts_;
  p.router = std::make_unique<http::Router>("/api");
  p.metrics = std::make_unique<http::Metrics>(counters);
  p.ladder = std::make_unique<cache::BanLadder>(cache::BanLadderOptions{
      .ladder_seconds = {60}, .threshold = 1000, .window_seconds = 600, .prefix = options.redis_prefix});
  p.keys = std::make_unique<auth::KeyCache>(60s, clock);
  p.pool = std::make_unique<db::BlockingPool>(
      db::BlockingPoolOptions{.threads = 2, .database_url = options.db_url, .redis = {.url = options.redis_url}},
      counters);
  register_routes(*p.router, *p.pool);
  p.metrics->set_routes(p.router->patterns());
  p.pipeline = std::make_unique<http::Pipeline>(
      http::PipelineDeps{*p.router, *p.metrics, clock, p.bans, *p.ladder, *p.keys, *p.pool, counters},
      http::PipelineOptions{.redis_prefix = options.redis_prefix});
  p.server = std::make_unique<http::Server>(
      p.ioc, http::ServerOptions{.listen = {"127.0.0.1", 0}, .max_connections = 64, .single_threaded = true},
      *p.pipeline, *p.metrics);
  p.server->start();
  p.port = p.server->bound().port;
  p.io_thread = std::thread([&p] { p.ioc.run(); });
}

TestServer::~TestServer() {
  Parts& p = *parts_;
  p.server->shutdown();
  for (int i = 0; i < 100 && p.server->connections() > 0; ++i) std::this_thread::sleep_for(20ms);
  p.ioc.stop();
  if (p.io_thread.joinable()) p.io_thread.join();
  p.pool->stop();
}

std::uint16_t TestServer::port() const { return parts_->port; }

}  // namespace mediagen::test
