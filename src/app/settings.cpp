#include "settings.hpp"

#include <algorithm>

#include "mediagen/core/crypto.hpp"
#include "mediagen/core/log.hpp"

namespace mediagen::app {

cache::RedisOptions redis_options(const Config& config, std::string client_name) {
  return {.url = config.redis_url, .client_name = std::move(client_name)};
}

db::ConnectLimits connect_limits(const Config& config) {
  return {.connect_timeout_seconds = static_cast<int>(config.db_connect_timeout_seconds),
          .statement_timeout_ms = static_cast<int>(config.db_statement_timeout_ms),
          .lock_timeout_ms = static_cast<int>(config.db_lock_timeout_ms)};
}

db::BlockingPoolOptions blocking_options(const Config& config) {
  return {.threads = config.db_pool_size,
          .request_deadline = std::chrono::milliseconds(config.db_request_deadline_ms),
          .limits = connect_limits(config),
          .database_url = config.database_url,
          .redis = redis_options(config, "mediagen")};
}

db::AsyncPgOptions read_options(const Config& config) {
  return {.url = config.database_url,
          .limits = connect_limits(config),
          .connections = static_cast<std::size_t>(config.db_read_connections),
          .deadline = std::chrono::milliseconds(config.db_request_deadline_ms)};
}

cache::BanLadderOptions ladder_options(const Config& config) {
  return {.ladder_seconds = config.ban_ladder_seconds,
          .threshold = config.ban_threshold,
          .window_seconds = config.ban_window_seconds,
          .prefix = config.redis_prefix,
          .secret = fanout_secret(config)};
}

realtime::HubOptions hub_options(const Config& config) {
  return {.activity_timeout = std::chrono::seconds(config.ws_activity_timeout_seconds),
          .pong_timeout = std::chrono::seconds(config.ws_pong_timeout_seconds),
          .max_connections = config.ws_max_connections,
          .max_connections_per_address = config.ws_max_connections_per_address,
          .max_message_bytes = config.ws_max_message_bytes,
          .max_subscriptions = config.ws_max_subscriptions,
          .fanout_channel = realtime_channel(config),
          .fanout_secret = fanout_secret(config),
          .single_threaded = config.io_threads == 1};
}

// Instances must agree on the channel secret: a socket authorized through one instance may
// subscribe on another. Without its own secret it is derived from MEDIAGEN_SECRET.
std::string pusher_secret(const Config& config) {
  if (!config.pusher_secret.empty()) return config.pusher_secret;
  if (!config.secret.empty()) return crypto::hmac_sha256_hex(config.secret, "mediagen realtime channels");
  log::warn("neither MEDIAGEN_PUSHER_SECRET nor MEDIAGEN_SECRET is set: channel signatures hold for this process only");
  return crypto::to_hex(crypto::sha256(crypto::random_bytes(32)));
}

// Instances must agree on it, or they drop each other's events. Without MEDIAGEN_SECRET the
// channel secret is the next shared one; without either, nothing is shared anyway.
std::string fanout_secret(const Config& config) {
  if (!config.secret.empty()) return config.secret;
  if (!config.pusher_secret.empty()) return config.pusher_secret;
  return crypto::random_bytes(32);
}

// Links signed with a secret of this process die with it.
std::string link_secret(const Config& config) {
  if (!config.secret.empty()) return config.secret;
  log::warn("MEDIAGEN_SECRET is not set: download links are signed with a secret of this process only");
  return crypto::random_bytes(32);
}

workers::ContentRules content_rules(const Config& config) {
  return {.policy_terms = config.content_policy, .fail_marker = config.engine_fail_marker};
}

namespace {

// The ladder only: the composition root adds its clock.
orders::PolicyCooldown policy_cooldown(const Config& config) {
  orders::PolicyCooldown cooldown;
  cooldown.ladder.clear();
  for (const auto seconds : config.policy_cooldown_seconds) cooldown.ladder.emplace_back(seconds);
  return cooldown;
}

}  // namespace

workers::WorkerPoolOptions worker_options(const Config& config) {
  return {.workers = config.workers,
          .lease = std::chrono::seconds(config.lease_seconds),
          // A stitch only joins files: a few leases are plenty, and a crashed stitcher's order is
          // picked up soon after.
          .stitch_lease = std::chrono::seconds(std::max<std::int64_t>(10, 4 * config.lease_seconds)),
          .sweep_interval = std::chrono::milliseconds(config.sweep_interval_ms),
          .retention = std::chrono::seconds(config.retention_seconds),
          .compensate_after = std::chrono::seconds(config.compensate_after_seconds),
          .content = content_rules(config),
          .cooldown = policy_cooldown(config),
          .engine_delay = std::chrono::milliseconds(config.engine_delay_ms),
          .db_limits = connect_limits(config)};
}

engines::UpstreamOptions upstream_options(const Config& config) {
  using std::chrono::milliseconds;
  engines::UpstreamOptions o;
  o.connect_timeout = milliseconds(config.upstream_connect_timeout_ms);
  o.total_timeout = milliseconds(config.upstream_timeout_ms);
  o.max_attempts = config.upstream_attempts;
  o.backoff_base = milliseconds(config.upstream_backoff_ms);
  o.max_in_flight = config.upstream_max_in_flight;
  o.breaker_failures = config.upstream_breaker_failures;
  o.breaker_open = milliseconds(config.upstream_breaker_open_ms);
  return o;
}

http::PipelineOptions pipeline_options(const Config& config) {
  return {.trusted_proxies = config.trusted_proxies,
          .docs_url = config.not_found_docs_url(),
          .developers_url = config.not_found_developers_url(),
          .redis_prefix = config.redis_prefix,
          .uploads = {.budget_bytes = config.upload_budget_bytes,
                      .per_key = config.uploads_per_key,
                      .pace = {.min_bytes_per_second = static_cast<std::uint64_t>(config.upload_min_rate),
                               .window = std::chrono::seconds(config.upload_rate_window_seconds),
                               .grace = std::chrono::seconds(config.upload_grace_seconds)}}};
}

http::ServerOptions public_server_options(const Config& config, http::UpgradeHandler& upgrade) {
  return {.listen = config.listen,
          .max_connections = config.max_connections,
          .header_limit_bytes = config.header_limit_bytes,
          .read_timeout_seconds = config.read_timeout_seconds,
          .idle_timeout_seconds = config.idle_timeout_seconds,
          .single_threaded = config.io_threads == 1,
          .upgrade = &upgrade};
}

// The public limits on the operator address, without the WebSocket endpoint and with a small
// connection cap: only operators and probes talk to it.
http::ServerOptions admin_server_options(const Config& config) {
  return {.listen = config.admin_listen,
          .max_connections = 256,
          .header_limit_bytes = config.header_limit_bytes,
          .read_timeout_seconds = config.read_timeout_seconds,
          .idle_timeout_seconds = config.idle_timeout_seconds,
          .single_threaded = config.io_threads == 1,
          .upgrade = nullptr};
}

std::string realtime_channel(const Config& config) { return config.redis_prefix + "realtime"; }
std::string queue_channel(const Config& config) { return config.redis_prefix + "queue"; }

}  // namespace mediagen::app
