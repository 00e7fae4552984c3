// App's routes, domain by domain, and the gauges its metrics add to the request counts.
#include <algorithm>

#include <nlohmann/json.hpp>

#include "mediagen/account/routes.hpp"
#include "mediagen/app/app.hpp"
#include "mediagen/auth/routes.hpp"
#include "mediagen/billing/routes.hpp"
#include "mediagen/catalog/routes.hpp"
#include "mediagen/compat/routes.hpp"
#include "mediagen/core/json_text.hpp"
#include "mediagen/docs/embedded.hpp"
#include "mediagen/docs/routes.hpp"
#include "mediagen/orders/order.hpp"
#include "mediagen/orders/routes.hpp"
#include "mediagen/realtime/auth_routes.hpp"
#include "mediagen/reseller/code_format.hpp"
#include "mediagen/reseller/routes.hpp"
#include "mediagen/storage/routes.hpp"
#include "mediagen/templates/routes.hpp"
#include "mediagen/voices/routes.hpp"
#include "mediagen/webhooks/routes.hpp"
#include "mediagen/workers/content_check.hpp"
#include "settings.hpp"

namespace mediagen::app {

namespace asio = boost::asio;

namespace {

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

std::string gauge(const char* name, const char* type, const char* help, std::uint64_t value) {
  return std::string("# HELP ") + name + " " + help + "\n# TYPE " + name + " " + type + "\n" + name + " " +
         std::to_string(value) + "\n";
}

// The generation side: threads, chunks in flight, the queue and what became of the chunks.
void render_worker_metrics(const workers::WorkerStats& st, std::string& out) {
  out += gauge("mediagen_workers", "gauge", "Generation worker threads of this instance.",
               static_cast<std::uint64_t>(st.threads));
  out += gauge("mediagen_workers_busy", "gauge", "Worker threads making a chunk now.", st.busy);
  if (st.pending) {
    out += gauge("mediagen_chunks_pending", "gauge",
                 "Chunks waiting for a worker on any instance, as of this instance's last sweep.",
                 static_cast<std::uint64_t>(std::max<std::int64_t>(0, *st.pending)));
  }
  out += gauge("mediagen_chunks_completed_total", "counter", "Chunks this instance's workers completed.", st.completed);
  out += "# HELP mediagen_chunks_failed_total Chunks this instance's workers failed, by failure reason.\n"
         "# TYPE mediagen_chunks_failed_total counter\n";
  for (const auto& [reason, n] : st.failed) {
    out += "mediagen_chunks_failed_total{reason=\"" + reason + "\"} " + std::to_string(n) + "\n";
  }
}

}  // namespace

// MEDIAGEN_STORAGE_REDIRECT=1: downloads go to S3 directly, by presigned URLs.
std::function<std::string(std::string_view, bool, std::int64_t, std::int64_t)> App::redirect_to_s3() const {
  if (!config_.storage_redirect || !s3_) return {};
  return [s3 = s3_](std::string_view key, bool download, std::int64_t seconds, std::int64_t now) {
    return s3->presign_get(key, download, seconds, now);
  };
}

void App::register_routes(const AppOptions& options) {
  add_open_routes(router_);
  if (options.routes) {
    options.routes(router_, blocking_, reads_);
    return;
  }
  docs::register_routes(router_, std::make_shared<const docs::Site>(docs::embedded_files()));
  auth::register_routes(router_, blocking_);
  account::register_routes(router_, reads_, profiles_);
  account::register_usage_routes(router_, blocking_);
  billing::register_wallet_routes(router_, blocking_);
  catalog::register_routes(router_, blocking_, catalogue_);
  templates::register_routes(router_, blocking_);
  voices::register_routes(router_, blocking_);
  voices::register_clone_routes(router_, blocking_,
                                {.store = *store_,
                                 .publish =
                                     [this](realtime::Event e) {
                                       hub_.publish(std::move(e));
                                       webhooks_.wake();
                                     },
                                 .on_queued = [this](cache::Redis&) { work_queued(); }});
  orders::register_preview_routes(
      router_, blocking_,
      {.redis_prefix = config_.redis_prefix,
       .on_ready = [this](db::Resources& r, UserId user, std::string_view id) { preview_ready(r, user, id); }});
  realtime::register_auth_routes(router_, blocking_,
                                 {.signer = channel_signer_, .on_granted = [this](db::Resources& r, const realtime::Grant& g) {
                                    return hub_.record_grant(r.redis, g);
                                  }});
  orders::register_order_read_routes(router_, blocking_, reads_);
  orders::register_order_write_routes(
      router_, blocking_,
      {.content_blocked =
           [rules = content_rules(config_)](std::string_view text) {
             return workers::check_content(text, rules) == workers::ContentVerdict::policy_flagged;
           },
       .on_queued = [this](cache::Redis&) { work_queued(); },
       .on_changed = [this](std::vector<orders::OrderChange> changes) { order_events_.changed(std::move(changes)); },
       .uploads = store_.get(),
       .webhook_allow = &webhook_allow_,
       .clock = &clock_,
       .quotes = &quotes_,
       .services = &services_});
  compat::register_routes(router_, blocking_,
                          {.store = store_.get(),
                           .waiters = &speech_waiters_,
                           .on_queued = [this](cache::Redis&) { work_queued(); },
                           .content_blocked =
                               [rules = content_rules(config_)](std::string_view text) {
                                 return workers::check_content(text, rules) == workers::ContentVerdict::policy_flagged;
                               },
                           .clock = &clock_,
                           .on_changed = [this](std::vector<orders::OrderChange> changes) {
                             order_events_.changed(std::move(changes));
                           },
                           .draining = &draining_});
  storage::register_routes(router_, blocking_,
                           {.store = *store_,
                            .signer = storage::LinkSigner(link_secret_),
                            .clock = clock_,
                            .public_url = config_.public_url,
                            .link_ttl = std::chrono::seconds(config_.link_ttl_seconds),
                            .authorize_path = &orders::authorize_download,
                            .redirect = redirect_to_s3()});
  // Gift codes are sealed under a key derived from MEDIAGEN_SECRET: instances sharing it read
  // each other's codes.
  reseller::register_routes(router_, blocking_,
                            {.cipher = std::make_shared<const reseller::CodeCipher>(config_.secret),
                             .clock = clock_,
                             .publish = [this](realtime::Event e) {
                               hub_.publish(std::move(e));
                               webhooks_.wake();
                             }});
  webhooks::register_routes(router_, blocking_);
}

void App::add_gauges() {
  if (s3_) metrics_.add_gauge_source([this](std::string& out) { s3_->render_metrics(out); });
  metrics_.add_gauge_source([this](std::string& out) { upstreams_.render_metrics(out); });
  metrics_.add_gauge_source([this](std::string& out) {
    out += gauge("mediagen_blocking_pool_threads", "gauge",
                 "Threads of the blocking pool (one PostgreSQL connection each).", blocking_.threads());
    out += gauge("mediagen_blocking_pool_busy", "gauge", "Blocking-pool threads running a job.", blocking_.busy());
    out += gauge("mediagen_blocking_pool_queued", "gauge", "Jobs waiting for a blocking-pool thread.", blocking_.queued());
    out += gauge("mediagen_upload_budget_bytes", "gauge", "What uploads being read at once may hold (MEDIAGEN_UPLOAD_BUDGET_BYTES).",
                 pipeline_.uploads().budget.capacity());
    out += gauge("mediagen_upload_budget_in_use_bytes", "gauge",
                 "Upload bytes held by bodies being read now (taken as they arrive).", pipeline_.uploads().budget.in_use());
    out += gauge("mediagen_uploads_in_progress", "gauge", "Uploads (multipart bodies) of any key being read now.",
                 pipeline_.uploads().slots.open());
  });
  metrics_.add_gauge_source([this](std::string& out) { render_worker_metrics(workers_.stats(), out); });
  metrics_.add_gauge_source([this](std::string& out) {
    const auto st = hub_.stats();
    out += gauge("mediagen_ws_connections", "gauge", "Open realtime sockets.", st.connections);
    out += gauge("mediagen_ws_subscriptions", "gauge", "Channel subscriptions on this instance.", st.subscriptions);
    out += gauge("mediagen_ws_frames_total", "counter", "Frames queued to realtime sockets.", st.delivered);
    out += gauge("mediagen_ws_address_refused_total", "counter",
                 "Realtime sockets refused with 4100: their address held MEDIAGEN_WS_MAX_CONNECTIONS_PER_ADDRESS.",
                 st.address_refused);
    out += gauge("mediagen_realtime_fanout_dropped_total", "counter",
                 "Malformed messages dropped from the fan-out channel.", st.fanout_dropped);
    out += gauge("mediagen_realtime_fanout_unsigned_total", "counter",
                 "Fan-out messages dropped for a missing or wrong signature.", st.fanout_unsigned);
    out += gauge("mediagen_realtime_publish_failed_total", "counter",
                 "Events that could not be sent to other instances.", st.publish_failed);
    hub_.fanout_time().render(out, "mediagen_realtime_fanout_seconds",
                              "Per realtime event with subscribers here: from its arrival (published here, or read "
                              "from the fan-out channel) until every local subscriber's socket has taken its frame "
                              "(written, or queued behind a write in progress).");
  });
  metrics_.add_gauge_source([this](std::string& out) {
    const auto st = webhooks_.stats();
    out += "# HELP mediagen_webhook_attempts_total Webhook delivery attempts of this instance, by outcome.\n"
           "# TYPE mediagen_webhook_attempts_total counter\n";
    out += "mediagen_webhook_attempts_total{outcome=\"delivered\"} " + std::to_string(st.delivered) + "\n";
    out += "mediagen_webhook_attempts_total{outcome=\"failed_status\"} " + std::to_string(st.failed_status) + "\n";
    out += "mediagen_webhook_attempts_total{outcome=\"failed_transport\"} " + std::to_string(st.failed_transport) + "\n";
    out += "mediagen_webhook_attempts_total{outcome=\"refused_address\"} " + std::to_string(st.refused_address) + "\n";
    out += gauge("mediagen_webhook_attempts_in_flight", "gauge", "Webhook attempts waiting for an answer here.", st.in_flight);
    out += gauge("mediagen_webhook_outbox_pending", "gauge",
                 "Webhook messages of every instance waiting for delivery, as of this instance's last look.",
                 static_cast<std::uint64_t>(std::max<std::int64_t>(0, st.outbox_pending)));
    webhooks_.delivery_delay().render(out, "mediagen_webhook_delivery_delay_seconds",
                                      "Per delivered webhook message: from its creation (the commit of its change) "
                                      "until the attempt that delivered it.");
  });
  metrics_.add_gauge_source([this](std::string& out) {
    out += gauge("mediagen_ban_events_unsigned_total", "counter",
                 "Ban events from Redis dropped for a missing or wrong signature.", ladder_.unsigned_events());
    out += gauge("mediagen_key_invalidations_unsigned_total", "counter",
                 "Key invalidations from Redis dropped for a missing or wrong signature.",
                 invalidations_unsigned_.load(std::memory_order_relaxed));
    out += gauge("mediagen_unknown_keys_refused_total", "counter",
                 "Requests answered 429 too_many_unknown_keys before any lookup "
                 "(MEDIAGEN_UNKNOWN_KEY_BUDGET_PER_MINUTE).",
                 unknown_keys_.refused());
  });
}

}  // namespace mediagen::app
