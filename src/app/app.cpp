// The composition root's life: building the parts in order, starting, running, draining, stopping.
#include "mediagen/app/app.hpp"

#include <boost/asio/co_spawn.hpp>
#include <boost/asio/post.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/use_awaitable.hpp>
#include <vector>

#include "mediagen/core/contain.hpp"
#include "mediagen/core/log.hpp"
#include "invalidation.hpp"
#include "ops_handler.hpp"
#include "settings.hpp"

namespace mediagen::app {

namespace asio = boost::asio;

namespace {

std::string to_string(const Endpoint& e) {
  return (e.host.find(':') != std::string::npos ? "[" + e.host + "]" : e.host) + ":" + std::to_string(e.port);
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

Created App::create(const Config& config, AppOptions options) {
  // Result files: checked before anything starts, it is the one setting nothing else validates.
  auto store = storage::open_store({.url = config.storage_url,
                                    .dir = config.storage_dir,
                                    .aws_endpoint_url = config.aws_endpoint_url,
                                    .aws_region = config.aws_region,
                                    .aws_access_key_id = config.aws_access_key_id,
                                    .aws_secret_access_key = config.aws_secret_access_key});
  if (!store.store) return store.error;
  if (config.storage_redirect && !store.s3) return "MEDIAGEN_STORAGE_REDIRECT=1 needs an s3:// MEDIAGEN_STORAGE_URL";
  return std::unique_ptr<App>(new App(config, options, std::move(store)));
}

App::App(const Config& config, const AppOptions& options, storage::OpenedStore store)
    : config_(config),
      clock_(options.clock ? *options.clock : system_clock_),
      counters_(options.counters ? *options.counters : own_counters_),
      profiles_(std::chrono::seconds{config_.profile_cache_ttl_seconds}, clock_),
      ioc_(config.io_threads),
      blocking_(blocking_options_with_hooks(), counters_),
      reads_(ioc_, read_options(config_), counters_),
      work_announces_(ioc_, kAnnouncePeriod,
                      [this] { blocking_.submit([this](db::Resources& r) { announce_work(r.redis); }); }),
      profile_announces_(ioc_, kAnnouncePeriod, [this] { start_profile_announcer(); }),
      ladder_(ladder_options(config_)),
      local_rates_(config_.instances),
      keys_(Seconds{config_.key_cache_ttl_seconds}, clock_),
      unknown_keys_(config_.unknown_key_budget_per_minute),
      catalogue_(clock_),
      channel_signer_(config_.pusher_key, pusher_secret(config_)),
      hub_(ioc_, hub_options(config_), config_.pusher_key, channel_signer_, blocking_, hub_hooks(),
           redis_options(config_, "mediagen"), clock_),
      webhook_allow_(webhooks::AllowList::parse(config_.webhook_allow_hosts)),
      webhooks_(webhook_options(), counters_),
      order_events_(config_.database_url, hub_, counters_, connect_limits(config_), [this] { webhooks_.wake(); }),
      store_(std::move(store.store)),
      s3_(store.s3),
      link_secret_(link_secret(config_)),
      quotes_(link_secret_),
      speech_(espeak_),
      music_(config_.soundfont.empty() ? std::string(engines::kDefaultSoundfont) : config_.soundfont),
      upstreams_(upstream_options(config_)),
      clone_job_(*store_, espeak_,
                 [this](realtime::Event e) {
                   hub_.publish(std::move(e));
                   webhooks_.wake();
                 }),
      workers_(worker_options_with_hooks(), speech_, *store_, config_.database_url, counters_),
      subscriber_(
          redis_options(config_, "mediagen-subscriber"),
          {ladder_.channel(), invalidation_channel(config_.redis_prefix), queue_channel(config_), realtime_channel(config_),
           catalog::invalidation_channel(config_.redis_prefix)},
          [this](std::string_view channel, std::string_view payload) { on_fanout(channel, payload); },
          [this] { on_fanout_connected(); }, &counters_),
      invalidations_(invalidation_signer(fanout_secret(config_))),
      router_(config_.api_prefix),
      metrics_(counters_),
      pipeline_({router_, metrics_, clock_, bans_, ladder_, keys_, unknown_keys_, blocking_, counters_, local_rates_}, pipeline_options(config_)),
      ops_(std::make_unique<OpsHandler>(metrics_, blocking_)),
      public_server_(ioc_, public_server_options(config_, hub_.upgrade_handler()), pipeline_, metrics_),
      admin_server_(ioc_, admin_server_options(config_), *ops_, metrics_) {
  register_routes(options);
  metrics_.set_routes(router_.patterns());
  add_gauges();
}

App::~App() { stop(); }

void App::start() {
  subscriber_.start();
  public_server_.start();
  admin_server_.start();
  log::info("listening", {{"public", std::string_view(to_string(public_server_.bound()))},
                          {"admin", std::string_view(to_string(admin_server_.bound()))},
                          {"io_threads", config_.io_threads},
                          {"db_pool", config_.db_pool_size}});
  hub_.start();
  order_events_.start();
  webhooks_.start();
  if (config_.workers > 0) workers_.start();
}

void App::run() {
  std::vector<std::thread> threads;
  for (int i = 1; i < config_.io_threads; ++i) threads.emplace_back([this] { run_io(ioc_, counters_); });
  run_io(ioc_, counters_);
  for (auto& t : threads) t.join();
}

void App::drain() {
  if (draining_.exchange(true)) return;
  // On an I/O thread, where the listeners and the sockets live.
  asio::post(ioc_, [this] {
    // Workers stop claiming at once and hand their chunks back, off the I/O thread (it blocks
    // on PostgreSQL), while the HTTP side drains.
    // An upstream call under way is abandoned rather than waited out.
    upstreams_.stop();
    worker_drain_ = std::thread([this] { workers_.stop(); });
    public_server_.shutdown();
    admin_server_.shutdown();
    hub_.shutdown();
    auto wait = [this]() -> asio::awaitable<void> {
      const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(config_.shutdown_grace_seconds);
      asio::steady_timer timer(ioc_);
      while ((public_server_.connections() > 0 || admin_server_.connections() > 0 || hub_.stats().connections > 0) &&
             std::chrono::steady_clock::now() < deadline) {
        timer.expires_after(std::chrono::milliseconds(20));
        co_await timer.async_wait(asio::use_awaitable);
      }
      // Past the grace period nothing more starts: a request still waiting for the database is
      // dropped (its socket closes with the process) rather than committed with nobody to tell.
      blocking_.abandon();
      ioc_.stop();
    };
    asio::co_spawn(ioc_, std::move(wait), contained(&counters_, Boundary::io_thread));
  });
}

void App::stop() {
  if (stopped_) return;
  stopped_ = true;
  // Chunks in flight go back to the queue for another instance (or the next start).
  if (worker_drain_.joinable()) worker_drain_.join();
  upstreams_.stop();
  workers_.stop();
  order_events_.stop();
  webhooks_.stop();
  subscriber_.stop();
  hub_.stop();
  blocking_.stop();
}

}  // namespace mediagen::app
