// The composition root: builds every part in dependency order, runs, and tears down in reverse.
#include <boost/asio/co_spawn.hpp>
#include <boost/asio/detached.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/signal_set.hpp>
#include <boost/asio/steady_timer.hpp>
#include <thread>

#include "commands.hpp"
#include "invalidation.hpp"
#include "mediagen/account/routes.hpp"
#include "mediagen/auth/key_cache.hpp"
#include "mediagen/auth/routes.hpp"
#include "mediagen/cache/ban_ladder.hpp"
#include "mediagen/cache/subscriber.hpp"
#include "mediagen/core/log.hpp"
#include "mediagen/db/blocking_pool.hpp"
#include "mediagen/db/migrate.hpp"
#include "mediagen/db/pg.hpp"
#include "mediagen/http/pipeline.hpp"
#include "mediagen/http/server.hpp"
#include "mediagen/core/crypto.hpp"
#include "mediagen/engines/espeak_engine.hpp"
#include "mediagen/orders/order_files.hpp"
#include "mediagen/orders/routes.hpp"
#include "mediagen/storage/local_store.hpp"
#include "mediagen/storage/routes.hpp"
#include "mediagen/workers/content_check.hpp"
#include "mediagen/workers/speech_source.hpp"
#include "mediagen/workers/worker_pool.hpp"
#include "mediagen/templates/routes.hpp"
#include "mediagen/voices/routes.hpp"
#include "ops_handler.hpp"

namespace mediagen::app {

namespace asio = boost::asio;

namespace {

std::string to_string(const Endpoint& e) {
  return (e.host.find(':') != std::string::npos ? "[" + e.host + "]" : e.host) + ":" + std::to_string(e.port);
}

void add_open_routes(http::Router& router) {
  // For load balancers and probes on the public port; the operator listener has its own.
  router.add_root({
      .method = http::Method::get,
      .pattern = "/healthz",
      .access = http::Access::open,
      .handler = [](http::RequestContext&) -> asio::awaitable<Result<http::Reply>> {
        co_return http::Reply{.data_json = R"({"status":"ok"})", .bare = true};
      },
  });
}

}  // namespace

int migrate(const Config& config) {
  InfraCounters counters;
  db::Db db(config.database_url, &counters);
  auto report = db::migrate(db, db::embedded_migrations());
  std::string applied = "[";
  for (std::size_t i = 0; i < report.applied.size(); ++i) {
    applied += (i ? "," : "") + std::to_string(report.applied[i]);
  }
  std::printf("{\"applied\":%s],\"version\":%d}\n", applied.c_str(), report.current_version);
  return 0;
}

int serve(const Config& config, bool run_migrations) {
  SystemClock clock;
  InfraCounters counters;
  if (run_migrations) {
    db::Db db(config.database_url, &counters);
    auto report = db::migrate(db, db::embedded_migrations());
    log::info("migrations checked", {{"version", report.current_version},
                                     {"applied", static_cast<std::int64_t>(report.applied.size())}});
  }

  cache::RedisOptions redis_options{.url = config.redis_url, .client_name = "mediagen"};
  db::BlockingPool pool({.threads = config.db_pool_size, .database_url = config.database_url, .redis = redis_options},
                        counters);
  cache::RedisOptions subscriber_options = redis_options;
  subscriber_options.client_name = "mediagen-subscriber";
  cache::BanList bans;
  cache::BanLadder ladder({.ladder_seconds = config.ban_ladder_seconds,
                           .threshold = config.ban_threshold,
                           .window_seconds = config.ban_window_seconds,
                           .prefix = config.redis_prefix});
  auth::KeyCache keys(Seconds{config.key_cache_ttl_seconds}, clock);

  // Bans and key invalidations reach every instance through Redis; after a reconnect the
  // bans are reloaded and the key cache emptied, since messages may have been missed.
  const std::string invalidations = invalidation_channel(config.redis_prefix);
  // New work in the queue, announced by whichever instance committed it.
  const std::string queue_channel = config.redis_prefix + "queue";
  std::function<void()> wake_workers;
  bool first_connect = true;
  cache::Subscriber subscriber(
      subscriber_options, {ladder.channel(), invalidations, queue_channel},
      [&](std::string_view channel, std::string_view payload) {
        if (channel == queue_channel) {
          if (wake_workers) wake_workers();
        } else if (channel == ladder.channel()) {
          if (auto event = cache::BanLadder::parse_event(payload)) {
            bans.prune(clock.now());
            bans.put(event->first, event->second);
          }
        } else if (auto what = parse_invalidation(payload)) {
          if (const auto* d = std::get_if<crypto::Sha256Digest>(&*what)) keys.invalidate_key(*d);
          else keys.invalidate_user(std::get<UserId>(*what));
        } else {
          log::warn("dropped a malformed fan-out message", {{"channel", channel}});
        }
      },
      [&] {
        if (!first_connect) keys.invalidate_all();
        first_connect = false;
        pool.submit([&](db::Resources& r) {
          try {
            bans.replace_all(ladder.load_active(r.redis, clock.now()));
          } catch (const std::exception& e) {
            log::warn("could not load active bans", {{"error", e.what()}});
          }
        });
      });
  subscriber.start();

  http::Router router(config.api_prefix);
  add_open_routes(router);
  auth::register_routes(router, pool);
  account::register_routes(router, pool);
  templates::register_routes(router, pool);
  voices::register_routes(router, pool);
  orders::register_preview_routes(
      router, pool,
      {.redis_prefix = config.redis_prefix, .on_ready = [](UserId user, std::string_view preview_id) {
         // The realtime `ready` event on private-chunks.preview.{userId} is published here.
         log::debug("preview ready", {{"user", user.value}, {"preview_id", preview_id}});
       }});

  orders::register_order_read_routes(router, pool);
  const workers::ContentRules content_rules{.policy_terms = config.content_policy, .fail_marker = config.engine_fail_marker};
  orders::register_order_write_routes(
      router, pool,
      {.redis_prefix = config.redis_prefix,
       .content_blocked =
           [&content_rules](std::string_view text) {
             return workers::check_content(text, content_rules) == workers::ContentVerdict::policy_flagged;
           },
       .on_queued =
           [&wake_workers, &queue_channel](cache::Redis& redis) {
             if (wake_workers) wake_workers();
             try {
               redis.command({"PUBLISH", queue_channel, "1"});
             } catch (const std::exception& e) {
               // Other instances still find the work on their next periodic wake-up.
               log::warn("could not announce queued work", {{"error", e.what()}});
             }
           }});

  // Result files: the local object store and signed links. Without a configured secret, links
  // are signed with one made up for this process (they then die with it).
  auto opened = storage::LocalStore::open(config.storage_dir);
  if (!opened) throw std::runtime_error("MEDIAGEN_STORAGE_DIR " + config.storage_dir + ": " + opened.error().detail);
  storage::LocalStore store = std::move(*opened);
  std::string link_secret = config.secret;
  if (link_secret.empty()) {
    log::warn("MEDIAGEN_SECRET is not set: download links are signed with a secret of this process only");
    link_secret = crypto::random_bytes(32);
  }
  storage::register_routes(router, pool,
                           {.store = store,
                            .signer = storage::LinkSigner(link_secret),
                            .clock = clock,
                            .public_url = config.public_url,
                            .link_ttl = std::chrono::seconds(config.link_ttl_seconds),
                            .authorize_path = &orders::authorize_download});

  engines::EspeakEngine espeak;
  workers::EspeakSource speech(espeak);
  workers::WorkerPool workers(
      {.workers = config.workers,
       .lease = std::chrono::seconds(config.lease_seconds),
       // A stitch only joins files: a few leases are plenty, and a crashed stitcher's order is
       // picked up soon after.
       .stitch_lease = std::chrono::seconds(std::max<std::int64_t>(10, 4 * config.lease_seconds)),
       .sweep_interval = std::chrono::milliseconds(config.sweep_interval_ms),
       .retention = std::chrono::seconds(config.retention_seconds),
       .compensate_after = std::chrono::seconds(config.compensate_after_seconds),
       .content = content_rules,
       .engine_delay = std::chrono::milliseconds(config.engine_delay_ms)},
      speech, store, config.database_url, counters);

  http::Metrics metrics(counters);
  metrics.set_routes(router.patterns());
  metrics.add_gauge_source([&pool](std::string& out) {
    out += "# HELP mediagen_blocking_pool_threads Threads of the blocking pool (one PostgreSQL connection each).\n"
           "# TYPE mediagen_blocking_pool_threads gauge\nmediagen_blocking_pool_threads " +
           std::to_string(pool.threads()) + "\n";
    out += "# HELP mediagen_blocking_pool_busy Blocking-pool threads running a job.\n"
           "# TYPE mediagen_blocking_pool_busy gauge\nmediagen_blocking_pool_busy " +
           std::to_string(pool.busy()) + "\n";
    out += "# HELP mediagen_blocking_pool_queued Jobs waiting for a blocking-pool thread.\n"
           "# TYPE mediagen_blocking_pool_queued gauge\nmediagen_blocking_pool_queued " +
           std::to_string(pool.queued()) + "\n";
  });

  http::Pipeline pipeline({router, metrics, clock, bans, ladder, keys, pool, counters},
                          {.trusted_proxies = config.trusted_proxies,
                           .docs_url = config.docs_url,
                           .developers_url = config.developers_url,
                           .redis_prefix = config.redis_prefix});
  OpsHandler ops(metrics, pool);

  asio::io_context ioc(config.io_threads);
  const http::ServerOptions limits{.listen = config.listen,
                                   .max_connections = config.max_connections,
                                   .header_limit_bytes = config.header_limit_bytes,
                                   .read_timeout_seconds = config.read_timeout_seconds,
                                   .idle_timeout_seconds = config.idle_timeout_seconds,
                                   .single_threaded = config.io_threads == 1};
  // Installed before anything announces readiness: a SIGTERM from then on always drains.
  asio::signal_set signals(ioc, SIGTERM, SIGINT);
  http::Server public_server(ioc, limits, pipeline, metrics);
  http::ServerOptions admin_limits = limits;
  admin_limits.listen = config.admin_listen;
  admin_limits.max_connections = 256;
  http::Server admin_server(ioc, admin_limits, ops, metrics);
  public_server.start();
  admin_server.start();
  log::info("listening", {{"public", std::string_view(to_string(public_server.bound()))},
                          {"admin", std::string_view(to_string(admin_server.bound()))},
                          {"io_threads", config.io_threads},
                          {"db_pool", config.db_pool_size}});

  // SIGTERM drains: stop accepting, let in-flight requests finish within the grace period.
  std::thread worker_drain;
  signals.async_wait([&](const boost::system::error_code& ec, int signo) {
    if (ec) return;
    log::info("draining", {{"signal", signo}});
    // Workers stop claiming at once and hand their chunks back, off the I/O thread (it blocks
    // on PostgreSQL), while the HTTP side drains.
    worker_drain = std::thread([&workers] { workers.stop(); });
    public_server.shutdown();
    admin_server.shutdown();
    asio::co_spawn(
        ioc,
        [&]() -> asio::awaitable<void> {
          const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(config.shutdown_grace_seconds);
          asio::steady_timer timer(ioc);
          while ((public_server.connections() > 0 || admin_server.connections() > 0) &&
                 std::chrono::steady_clock::now() < deadline) {
            timer.expires_after(std::chrono::milliseconds(20));
            co_await timer.async_wait(asio::use_awaitable);
          }
          ioc.stop();
        },
        asio::detached);
  });

  if (config.workers > 0) {
    workers.start();
    wake_workers = [&workers] { workers.wake(); };
  }
  std::vector<std::thread> threads;
  for (int i = 1; i < config.io_threads; ++i) threads.emplace_back([&] { ioc.run(); });
  ioc.run();
  for (auto& t : threads) t.join();

  // Chunks in flight go back to the queue for another instance (or the next start).
  if (worker_drain.joinable()) worker_drain.join();
  workers.stop();

  subscriber.stop();
  pool.stop();
  log::info("stopped");
  return 0;
}

}  // namespace mediagen::app
