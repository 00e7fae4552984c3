// The composition root: builds every part in dependency order, runs, and tears down in reverse.
#include <boost/asio/co_spawn.hpp>
#include "mediagen/core/json_text.hpp"
#include <boost/asio/io_context.hpp>
#include <boost/asio/signal_set.hpp>
#include <boost/asio/steady_timer.hpp>
#include <sys/resource.h>
#include <thread>

#include <nlohmann/json.hpp>

#include "commands.hpp"
#include "invalidation.hpp"
#include "mediagen/account/routes.hpp"
#include "mediagen/auth/key_cache.hpp"
#include "mediagen/auth/keys.hpp"
#include "mediagen/auth/routes.hpp"
#include "mediagen/cache/ban_ladder.hpp"
#include "mediagen/cache/subscriber.hpp"
#include "mediagen/core/contain.hpp"
#include "mediagen/core/log.hpp"
#include "mediagen/db/blocking_pool.hpp"
#include "mediagen/db/migrate.hpp"
#include "mediagen/db/pg.hpp"
#include "mediagen/http/pipeline.hpp"
#include "mediagen/http/server.hpp"
#include "mediagen/core/crypto.hpp"
#include "mediagen/engines/espeak_engine.hpp"
#include "mediagen/orders/order_events.hpp"
#include "mediagen/orders/order_files.hpp"
#include "mediagen/orders/routes.hpp"
#include "mediagen/realtime/auth_routes.hpp"
#include "mediagen/realtime/channel_signer.hpp"
#include "mediagen/realtime/hub.hpp"
#include "mediagen/storage/local_store.hpp"
#include "mediagen/storage/routes.hpp"
#include "mediagen/orders/work_queue.hpp"
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

// Every socket is a descriptor: take the whole hard limit the operator allows.
void raise_file_limit() {
  rlimit lim{};
  if (getrlimit(RLIMIT_NOFILE, &lim) == 0 && lim.rlim_cur < lim.rlim_max) {
    lim.rlim_cur = lim.rlim_max;
    setrlimit(RLIMIT_NOFILE, &lim);
  }
}

// Instances must agree on the channel secret: a socket authorized through one instance may
// subscribe on another. Without its own secret it is derived from MEDIAGEN_SECRET.
std::string pusher_secret(const Config& config) {
  if (!config.pusher_secret.empty()) return config.pusher_secret;
  if (!config.secret.empty()) return crypto::hmac_sha256_hex(config.secret, "mediagen realtime channels");
  log::warn("neither MEDIAGEN_PUSHER_SECRET nor MEDIAGEN_SECRET is set: channel signatures hold for this process only");
  return crypto::to_hex(crypto::sha256(crypto::random_bytes(32)));
}

void add_realtime_gauges(http::Metrics& metrics, const realtime::Hub& hub) {
  metrics.add_gauge_source([&hub](std::string& out) {
    const auto st = hub.stats();
    out += "# HELP mediagen_ws_connections Open realtime sockets.\n# TYPE mediagen_ws_connections gauge\n"
           "mediagen_ws_connections " + std::to_string(st.connections) + "\n";
    out += "# HELP mediagen_ws_subscriptions Channel subscriptions on this instance.\n"
           "# TYPE mediagen_ws_subscriptions gauge\nmediagen_ws_subscriptions " + std::to_string(st.subscriptions) + "\n";
    out += "# HELP mediagen_ws_frames_total Frames queued to realtime sockets.\n"
           "# TYPE mediagen_ws_frames_total counter\nmediagen_ws_frames_total " + std::to_string(st.delivered) + "\n";
    out += "# HELP mediagen_realtime_fanout_dropped_total Malformed messages dropped from the fan-out channel.\n"
           "# TYPE mediagen_realtime_fanout_dropped_total counter\nmediagen_realtime_fanout_dropped_total " +
           std::to_string(st.fanout_dropped) + "\n";
    out += "# HELP mediagen_realtime_publish_failed_total Events that could not be sent to other instances.\n"
           "# TYPE mediagen_realtime_publish_failed_total counter\nmediagen_realtime_publish_failed_total " +
           std::to_string(st.publish_failed) + "\n";
  });
}

// One I/O thread: a handler that throws is reported and the thread runs on (an io_context may
// be run again after an exception left it), so no handler can end the process.
void run_io(asio::io_context& ioc, InfraCounters& counters) {
  for (;;) {
    try {
      ioc.run();
      return;
    } catch (...) {
      report_contained(&counters, Boundary::io_thread, std::current_exception());
    }
  }
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
  raise_file_limit();
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

  asio::io_context ioc(config.io_threads);
  const realtime::ChannelSigner channel_signer(config.pusher_key, pusher_secret(config));
  realtime::Hub hub(
      ioc,
      {.activity_timeout = std::chrono::seconds(config.ws_activity_timeout_seconds),
       .pong_timeout = std::chrono::seconds(config.ws_pong_timeout_seconds),
       .max_connections = config.ws_max_connections,
       .max_message_bytes = config.ws_max_message_bytes,
       .max_subscriptions = config.ws_max_subscriptions,
       .fanout_channel = config.redis_prefix + "realtime",
       .single_threaded = config.io_threads == 1},
      config.pusher_key, channel_signer, pool,
      {.snapshot = [](db::Resources& r, const realtime::Channel& channel) -> std::optional<realtime::Event> {
         if (channel.kind != realtime::ChannelKind::order) return std::nullopt;
         return orders::order_snapshot(r.db, channel.order_id);
       },
       .key_valid =
           [&clock](db::Resources& r, const crypto::Sha256Digest& digest) {
             auto key = auth::find_key_by_hash(r.db, digest);
             return key && !key->key_disabled && !key->user_blocked && (!key->expires_at || *key->expires_at > clock.now());
           },
       // The ban of repeated unknown paths covers sockets too (spec 8.1: all paths).
       .refused = [&bans, &clock, &config](std::string_view peer, std::optional<std::string_view> forwarded)
           -> std::optional<std::string> {
         const auto ip = http::resolve_client_ip(peer, forwarded, config.trusted_proxies);
         if (bans.check(ip, clock.now())) return "IP banned after repeated unknown paths";
         return std::nullopt;
       }},
      redis_options, clock);
  const std::string realtime_channel = config.redis_prefix + "realtime";
  // Status changes become order channel events once their transaction committed.
  orders::OrderEventPublisher order_events(config.database_url, hub, counters);

  // Bans and key invalidations reach every instance through Redis; after a reconnect the
  // bans are reloaded and the key cache emptied, since messages may have been missed.
  const std::string invalidations = invalidation_channel(config.redis_prefix);
  // New work in the queue, announced by whichever instance committed it.
  const std::string queue_channel = config.redis_prefix + "queue";
  std::function<void()> wake_workers;
  bool first_connect = true;
  cache::Subscriber subscriber(
      subscriber_options, {ladder.channel(), invalidations, queue_channel, realtime_channel},
      [&](std::string_view channel, std::string_view payload) {
        if (channel == realtime_channel) {
          hub.on_fanout(payload);
        } else if (channel == queue_channel) {
          if (wake_workers) wake_workers();
        } else if (channel == ladder.channel()) {
          if (auto event = cache::BanLadder::parse_event(payload)) {
            bans.prune(clock.now());
            bans.put(event->first, event->second);
          }
        } else if (auto what = parse_invalidation(payload)) {
          if (const auto* d = std::get_if<crypto::Sha256Digest>(&*what)) {
            keys.invalidate_key(*d);
            hub.key_changed(*d);
          } else {
            keys.invalidate_user(std::get<UserId>(*what));
            hub.user_changed(std::get<UserId>(*what));
          }
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
      },
      &counters);
  subscriber.start();

  http::Router router(config.api_prefix);
  add_open_routes(router);
  auth::register_routes(router, pool);
  account::register_routes(router, pool);
  templates::register_routes(router, pool);
  voices::register_routes(router, pool);
  orders::register_preview_routes(
      router, pool,
      {.redis_prefix = config.redis_prefix, .on_ready = [&hub](UserId user, std::string_view preview_id) {
         nlohmann::json data = {{"preview_id", preview_id}, {"status", "ready"}};
         hub.publish({.channel = realtime::preview_channel(user), .name = "ready", .data = to_json_text(data)});
       }});
  realtime::register_auth_routes(router, pool,
                                 {.signer = channel_signer, .on_granted = [&hub](db::Resources& r, const realtime::Grant& g) {
                                    hub.record_grant(r.redis, g);
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
           },
       .on_changed = [&order_events](std::vector<orders::OrderChange> changes) {
         order_events.changed(std::move(changes));
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
       .engine_delay = std::chrono::milliseconds(config.engine_delay_ms),
       .on_change =
           [&order_events](const orders::OrderChange& change) { order_events.changed(change); }},
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

  add_realtime_gauges(metrics, hub);
  const http::ServerOptions limits{.listen = config.listen,
                                   .max_connections = config.max_connections,
                                   .header_limit_bytes = config.header_limit_bytes,
                                   .read_timeout_seconds = config.read_timeout_seconds,
                                   .idle_timeout_seconds = config.idle_timeout_seconds,
                                   .single_threaded = config.io_threads == 1,
                                   .upgrade = &hub.upgrade_handler()};
  // Installed before anything announces readiness: a SIGTERM from then on always drains.
  asio::signal_set signals(ioc, SIGTERM, SIGINT);
  http::Server public_server(ioc, limits, pipeline, metrics);
  http::ServerOptions admin_limits = limits;
  admin_limits.listen = config.admin_listen;
  admin_limits.upgrade = nullptr;
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
    hub.shutdown();
    asio::co_spawn(
        ioc,
        [&]() -> asio::awaitable<void> {
          const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(config.shutdown_grace_seconds);
          asio::steady_timer timer(ioc);
          while ((public_server.connections() > 0 || admin_server.connections() > 0 || hub.stats().connections > 0) &&
                 std::chrono::steady_clock::now() < deadline) {
            timer.expires_after(std::chrono::milliseconds(20));
            co_await timer.async_wait(asio::use_awaitable);
          }
          ioc.stop();
        },
        contained(&counters, Boundary::io_thread));
  });

  hub.start();
  order_events.start();
  if (config.workers > 0) {
    workers.start();
    wake_workers = [&workers] { workers.wake(); };
  }
  std::vector<std::thread> threads;
  for (int i = 1; i < config.io_threads; ++i) threads.emplace_back([&] { run_io(ioc, counters); });
  run_io(ioc, counters);
  for (auto& t : threads) t.join();

  // Chunks in flight go back to the queue for another instance (or the next start).
  if (worker_drain.joinable()) worker_drain.join();
  workers.stop();

  order_events.stop();
  subscriber.stop();
  hub.stop();
  pool.stop();
  log::info("stopped");
  return 0;
}

}  // namespace mediagen::app
