#pragma once
// The composition root: every part of one instance, built once from Config in dependency order
// and destroyed in reverse. `mediagen serve` and the in-process test server build through it, so
// the parts are wired in one place only.
//
// Life: create() (nothing listens or runs yet; fails on a bad setting) -> start() (listeners
// bound, threads started; throws when an address cannot be bound) -> run() on the I/O threads
// until drain() has let the connections finish -> stop() joins what is left (the destructor
// calls it too).
#include <atomic>
#include <chrono>
#include <boost/asio/io_context.hpp>
#include <boost/system/result.hpp>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <unordered_set>
#include <vector>

#include "mediagen/account/profile_cache.hpp"
#include "mediagen/app/throttle.hpp"
#include "mediagen/auth/key_cache.hpp"
#include "mediagen/auth/unknown_key_budget.hpp"
#include "mediagen/cache/ban_ladder.hpp"
#include "mediagen/cache/local_rate.hpp"
#include "mediagen/cache/subscriber.hpp"
#include "mediagen/catalog/catalogue_cache.hpp"
#include "mediagen/compat/order_waiters.hpp"
#include "mediagen/core/clock.hpp"
#include "mediagen/core/config.hpp"
#include "mediagen/core/counters.hpp"
#include "mediagen/core/signed_message.hpp"
#include "mediagen/db/async_pg.hpp"
#include "mediagen/db/blocking_pool.hpp"
#include "mediagen/engines/speech.hpp"
#include "mediagen/engines/music.hpp"
#include "mediagen/engines/sfx.hpp"
#include "mediagen/engines/upstream.hpp"
#include "mediagen/http/metrics.hpp"
#include "mediagen/http/pipeline.hpp"
#include "mediagen/http/router.hpp"
#include "mediagen/http/server.hpp"
#include "mediagen/orders/reads.hpp"
#include "mediagen/orders/limits.hpp"
#include "mediagen/realtime/channel_signer.hpp"
#include "mediagen/realtime/hub.hpp"
#include "mediagen/storage/open_store.hpp"
#include "mediagen/templates/service_cache.hpp"
#include "mediagen/voices/clone_job.hpp"
#include "mediagen/webhooks/deliverer.hpp"
#include "mediagen/workers/speech_source.hpp"
#include "mediagen/workers/worker_pool.hpp"

namespace mediagen::app {

class OpsHandler;

// What tests vary beyond Config.
struct AppOptions {
  // Time wherever it decides behaviour (bans, key cache, links, key expiry); null: the system clock.
  const Clock* clock = nullptr;
  // Where infrastructure failures are counted; null: counters of the App's own.
  InfraCounters* counters = nullptr;
  // Replaces the domain routes (the open /healthz stays): a test serves the routes it
  // registers, with hooks of its own.
  std::function<void(http::Router&, db::BlockingPool&, db::AsyncPg&)> routes;
};

class App;
using Created = boost::system::result<std::unique_ptr<App>, std::string>;

class App {
 public:
  // The error names the setting that cannot be used (e.g. an unusable MEDIAGEN_STORAGE_DIR).
  static Created create(const Config& config, AppOptions options = {});
  ~App();  // stop()
  App(const App&) = delete;
  App& operator=(const App&) = delete;

  // Binds the listeners, logs their addresses, starts the background threads.
  void start();
  // Runs the I/O context on Config::io_threads threads (this one included) until drain() ends it.
  void run();
  // Stops accepting and lets connections finish within Config::shutdown_grace_seconds, then ends
  // run(); the workers hand their chunks back meanwhile. Any thread; once.
  void drain();
  // After run() returned: joins the workers, the publishers and the blocking pool. Idempotent.
  void stop();

  boost::asio::io_context& io() { return ioc_; }
  Endpoint public_endpoint() const { return public_server_.bound(); }
  std::size_t connections() const { return public_server_.connections(); }
  cache::BanList& bans() { return bans_; }
  http::Metrics& metrics() { return metrics_; }
  // The first load of the active bans after the fan-out subscription connected has finished.
  bool bans_loaded() const { return bans_loaded_.load(); }

 private:
  App(const Config& config, const AppOptions& options, storage::OpenedStore store);

  // The hooks that connect the parts (app_hooks.cpp).
  realtime::HubHooks hub_hooks();
  db::BlockingPoolOptions blocking_options_with_hooks();
  workers::WorkerPoolOptions worker_options_with_hooks();
  // Wakes this instance's workers, and the others' through Redis (throttled: work_announces_).
  void work_queued();
  void announce_work(cache::Redis& redis);
  void on_fanout(std::string_view channel, std::string_view payload);
  void on_key_invalidation(std::string_view payload);
  void on_fanout_connected();
  // After a commit changed profiles: dropped here at once, announced to the others (app_hooks.cpp).
  void profiles_changed(const std::vector<std::int64_t>& users);
  void start_profile_announcer();
  void announce_profiles(cache::Redis& redis);
  // The routes and the metrics' gauges (app_routes.cpp).
  void register_routes(const AppOptions& options);
  std::function<std::string(std::string_view, bool, std::int64_t, std::int64_t)> redirect_to_s3() const;
  void add_gauges();
  // The deliverer's settings and its renderer of the events nobody rendered (app_hooks.cpp).
  webhooks::DelivererOptions webhook_options() const;
  // A background preview is ready: its realtime event and its preview.ready webhook messages.
  void preview_ready(db::Resources& r, UserId user, std::string_view preview_id);

  const Config config_;
  SystemClock system_clock_;
  const Clock& clock_;
  InfraCounters own_counters_;
  InfraCounters& counters_;
  // Speech answers waiting for their orders' chunks (compat), woken by the workers' changes.
  compat::OrderWaiters speech_waiters_;
  // GET /user's profiles; before the pools whose commits drop its entries.
  account::ProfileCache profiles_;
  templates::ServiceCache services_;  // the services orders from templates are checked against
  // Users whose profile changed, to announce to the other instances (announce_profiles), and
  // whether an announcer is on its way; under profile_notices_mutex_.
  std::mutex profile_notices_mutex_;
  std::unordered_set<std::int64_t> profile_notices_;
  bool profile_announcer_ = false;
  TimePoint::rep profile_notices_resting_until_ = 0;
  // Before every part its coroutine frames point into: destroyed after them.
  boost::asio::io_context ioc_;
  db::BlockingPool blocking_;
  db::AsyncPg reads_;  // the GET routes' reads, from the I/O threads
  // Announcements to the other instances, at most one PUBLISH each per kAnnouncePeriod: a burst
  // of orders wakes the other instances' workers once, not once per order.
  static constexpr std::chrono::milliseconds kAnnouncePeriod{10};
  Throttle work_announces_;
  Throttle profile_announces_;
  cache::BanList bans_;
  cache::BanLadder ladder_;
  cache::LocalRateWindows local_rates_;
  auth::KeyCache keys_;
  auth::UnknownKeyBudget unknown_keys_;  // lookups of keys that do not exist, per client address
  catalog::CatalogueCache catalogue_;  // the AI model catalogue, dropped on a change announced on Redis
  const realtime::ChannelSigner channel_signer_;
  realtime::Hub hub_;
  // Webhook deliveries (before the publisher, which wakes them when it filled in their data).
  const webhooks::AllowList webhook_allow_;
  webhooks::Deliverer webhooks_;
  // Status changes become order channel events once their transaction committed.
  orders::OrderEventPublisher order_events_;
  // Result files: a local folder or an S3 bucket (MEDIAGEN_STORAGE_URL); s3_ is the same store
  // when it is an S3 one (its presigned links and its metrics).
  std::unique_ptr<storage::ObjectStore> store_;
  storage::S3Store* s3_ = nullptr;
  const std::string link_secret_;
  const orders::QuoteSigner quotes_;  // top-up quotes (spec 7.1), signed like download links
  engines::EspeakEngine espeak_;
  workers::EspeakSource speech_;
  engines::SfxEngine sfx_;
  engines::MusicEngine music_;  // loads its soundfont at the first music order
  engines::Upstreams upstreams_;  // upstream provider engines: their caps and breakers, shared by the workers
  voices::CloneJob clone_job_;  // run by the workers between chunks
  workers::WorkerPool workers_;
  // Bans, key invalidations, queued work and realtime events of every instance, through Redis.
  cache::Subscriber subscriber_;
  // Key invalidations are signed by whoever publishes them (the operator CLI); unsigned ones are
  // dropped and counted (mediagen_key_invalidations_unsigned_total).
  const MessageSigner invalidations_;
  std::atomic<std::uint64_t> invalidations_unsigned_{0};
  std::atomic<bool> bans_loaded_{false};
  // Queued-work announces are skipped until then (clock ticks) after one failed (work_queued).
  static constexpr std::chrono::seconds kAnnounceRest{2};
  static constexpr std::size_t kMaxProfileNotices = 100000;
  std::atomic<TimePoint::rep> announce_resting_until_{0};
  std::atomic<bool> announcing_{false};  // an announce is waiting on Redis now
  bool reconnected_ = false;  // the subscriber's thread only
  http::Router router_;
  http::Metrics metrics_;
  http::Pipeline pipeline_;
  std::unique_ptr<OpsHandler> ops_;
  http::Server public_server_;
  http::Server admin_server_;
  std::thread worker_drain_;
  std::atomic<bool> draining_{false};
  bool stopped_ = false;
};

}  // namespace mediagen::app
