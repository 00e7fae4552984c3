#include "test_server.hpp"

#include <chrono>
#include <cstdlib>
#include <stdexcept>

#include "mediagen/app/app.hpp"

namespace mediagen::test {

using namespace std::chrono_literals;

namespace {

std::filesystem::path make_temp_dir() {
  std::string pattern = (std::filesystem::temp_directory_path() / "mg-test-server-XXXXXX").string();
  if (::mkdtemp(pattern.data()) == nullptr) throw std::runtime_error("mkdtemp failed for " + pattern);
  return pattern;
}

}  // namespace

Config TestServer::config(const TestServerOptions& options) {
  Config c;
  c.listen = {"127.0.0.1", 0};
  c.admin_listen = {"127.0.0.1", 0};
  c.database_url = options.db_url;
  c.redis_url = options.redis_url;
  c.redis_prefix = options.redis_prefix;
  c.api_prefix = "/api";
  c.secret = "test-server-secret";
  c.io_threads = 1;
  c.workers = 0;
  c.db_pool_size = 2;
  c.max_connections = 64;
  c.key_cache_ttl_seconds = 60;
  c.ban_ladder_seconds = {60};
  c.ban_threshold = 1000;
  c.ban_window_seconds = 600;
  c.shutdown_grace_seconds = 2;
  return c;
}

TestServer::TestServer(const TestServerOptions& options, const Clock& clock, InfraCounters& counters,
                       const RegisterRoutes& register_routes)
    : TestServer(config(options), clock, counters, register_routes) {}

TestServer::TestServer(Config config, const Clock& clock, InfraCounters& counters,
                       const RegisterRoutes& register_routes)
    : storage_dir_(make_temp_dir()) {
  config.storage_dir = (storage_dir_ / "store").string();
  auto created = app::App::create(config, {.clock = &clock, .counters = &counters, .routes = register_routes});
  if (!created) throw std::runtime_error(created.error());
  app_ = std::move(*created);
  app_->start();
  // A ban a test puts in must not be replaced by the first load of the bans in Redis.
  for (int i = 0; i < 500 && !app_->bans_loaded(); ++i) std::this_thread::sleep_for(10ms);
  io_thread_ = std::thread([app = app_.get()] { app->run(); });
}

TestServer::~TestServer() {
  drain();
  app_.reset();
  std::error_code ec;
  std::filesystem::remove_all(storage_dir_, ec);
}

void TestServer::drain() {
  if (!io_thread_.joinable()) return;
  app_->drain();
  io_thread_.join();
  app_->stop();
}

std::uint16_t TestServer::port() const { return app_->public_endpoint().port; }
std::size_t TestServer::connections() const { return app_->connections(); }
cache::BanList& TestServer::bans() { return app_->bans(); }
http::Metrics& TestServer::metrics() { return app_->metrics(); }

}  // namespace mediagen::test
