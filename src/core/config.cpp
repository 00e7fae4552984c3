#include "mediagen/core/config.hpp"

#include "mediagen/core/redact.hpp"

#include <charconv>
#include <cstdlib>
#include <stdexcept>
#include <thread>

namespace mediagen {
namespace {

std::int64_t parse_int(const char* name, const std::string& text, std::int64_t min, std::int64_t max) {
  std::int64_t value = 0;
  auto [ptr, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (ec != std::errc{} || ptr != text.data() + text.size() || value < min || value > max) {
    throw std::invalid_argument(std::string(name) + ": expected an integer in [" +
                                std::to_string(min) + ", " + std::to_string(max) + "], got '" + text + "'");
  }
  return value;
}

std::vector<std::string> split(const std::string& text, char sep) {
  std::vector<std::string> out;
  std::string item;
  for (char c : text) {
    if (c == sep) {
      if (!item.empty()) out.push_back(item);
      item.clear();
    } else if (c != ' ') {
      item += c;
    }
  }
  if (!item.empty()) out.push_back(item);
  return out;
}

// Comma-separated terms; spaces inside a term are kept, around it trimmed.
std::vector<std::string> split_list(const std::string& text) {
  std::vector<std::string> out;
  std::size_t start = 0;
  while (start <= text.size()) {
    std::size_t end = text.find(',', start);
    if (end == std::string::npos) end = text.size();
    std::string term = text.substr(start, end - start);
    const auto first = term.find_first_not_of(" \t");
    const auto last = term.find_last_not_of(" \t");
    if (first != std::string::npos) out.push_back(term.substr(first, last - first + 1));
    start = end + 1;
  }
  return out;
}

}  // namespace

Endpoint parse_endpoint(const std::string& text) {
  auto colon = text.rfind(':');
  if (colon == std::string::npos || colon == 0) {
    throw std::invalid_argument("expected host:port, got '" + text + "'");
  }
  Endpoint e;
  e.host = text.substr(0, colon);
  if (e.host.size() > 2 && e.host.front() == '[' && e.host.back() == ']') e.host = e.host.substr(1, e.host.size() - 2);
  e.port = static_cast<std::uint16_t>(parse_int("port", text.substr(colon + 1), 0, 65535));
  return e;
}

// Comma-separated durations in seconds, each 1 s .. 1 year, at least one.
static std::vector<std::int64_t> parse_ladder(const char* name, const std::string& text) {
  std::vector<std::int64_t> ladder;
  for (const auto& item : split(text, ',')) ladder.push_back(parse_int(name, item, 1, 86400 * 365));
  if (ladder.empty()) throw std::invalid_argument(std::string(name) + ": empty ladder");
  return ladder;
}

// "0" alone turns the policy cooldown off (empty); a zero on a ladder is refused like any bad step.
static std::vector<std::int64_t> parse_cooldown_ladder(const std::string& text) {
  if (split(text, ',') == std::vector<std::string>{"0"}) return {};
  return parse_ladder("MEDIAGEN_POLICY_COOLDOWN_SECONDS", text);
}

// MEDIAGEN_WEBHOOK_RETRY_SCHEDULE: seconds, zeros allowed, at most 50 attempts.
static std::vector<std::int64_t> parse_webhook_schedule(const std::string& text) {
  std::vector<std::int64_t> schedule;
  for (const auto& item : split(text, ',')) {
    schedule.push_back(parse_int("MEDIAGEN_WEBHOOK_RETRY_SCHEDULE", item, 0, 86400 * 7));
  }
  if (schedule.empty() || schedule.size() > 50) {
    throw std::invalid_argument("MEDIAGEN_WEBHOOK_RETRY_SCHEDULE: 1 to 50 comma-separated seconds");
  }
  return schedule;
}

// The upstream provider engines' timeouts, retries, cap and breaker.
static void read_upstream_settings(Config& c, const std::function<std::optional<std::string>(const char*)>& getenv) {
  auto num = [&](const char* name, auto& field, std::int64_t min, std::int64_t max) {
    if (auto v = getenv(name)) field = static_cast<std::remove_reference_t<decltype(field)>>(parse_int(name, *v, min, max));
  };
  num("MEDIAGEN_UPSTREAM_CONNECT_TIMEOUT_MS", c.upstream_connect_timeout_ms, 100, 600000);
  num("MEDIAGEN_UPSTREAM_TIMEOUT_MS", c.upstream_timeout_ms, 100, 3600000);
  num("MEDIAGEN_UPSTREAM_ATTEMPTS", c.upstream_attempts, 1, 10);
  num("MEDIAGEN_UPSTREAM_BACKOFF_MS", c.upstream_backoff_ms, 0, 60000);
  num("MEDIAGEN_UPSTREAM_MAX_IN_FLIGHT", c.upstream_max_in_flight, 1, 1024);
  num("MEDIAGEN_UPSTREAM_BREAKER_FAILURES", c.upstream_breaker_failures, 1, 1000);
  num("MEDIAGEN_UPSTREAM_BREAKER_OPEN_MS", c.upstream_breaker_open_ms, 100, 86400000);
}

// Where result files live; the URL itself is checked when the store opens (App::create).
static void read_storage_settings(Config& c, const std::function<std::optional<std::string>(const char*)>& getenv) {
  auto str = [&](const char* name, std::string& field) { field = getenv(name).value_or(field); };
  str("MEDIAGEN_STORAGE_URL", c.storage_url);
  if (auto v = getenv("MEDIAGEN_STORAGE_REDIRECT")) {
    if (*v != "0" && *v != "1") throw std::invalid_argument("MEDIAGEN_STORAGE_REDIRECT: expected 0 or 1, got '" + *v + "'");
    c.storage_redirect = *v == "1";
  }
  str("AWS_ENDPOINT_URL", c.aws_endpoint_url);
  str("AWS_REGION", c.aws_region);
  str("AWS_ACCESS_KEY_ID", c.aws_access_key_id);
  str("AWS_SECRET_ACCESS_KEY", c.aws_secret_access_key);
  if (c.aws_region.empty()) c.aws_region = "us-east-1";
}

namespace {

std::string public_docs_url(const std::string& public_url) {
  std::string_view base(public_url);
  while (!base.empty() && base.back() == '/') base.remove_suffix(1);
  return std::string(base) + "/docs";
}

}  // namespace

std::string Config::not_found_docs_url() const {
  return docs_url.empty() ? public_docs_url(public_url) : docs_url;
}

std::string Config::not_found_developers_url() const {
  return developers_url.empty() ? public_docs_url(public_url) + "#section/Conventions" : developers_url;
}

// The limits of connections, uploads and sockets: what one client may hold of the instance.
template <class Num>
static void read_connection_limits(Config& c, Num& num) {
  num("MEDIAGEN_UPLOAD_BUDGET_BYTES", c.upload_budget_bytes, std::int64_t{1} << 20, std::int64_t{1} << 40);
  num("MEDIAGEN_UPLOADS_PER_KEY", c.uploads_per_key, 1, 1000);
  num("MEDIAGEN_UPLOAD_MIN_RATE", c.upload_min_rate, 0, std::int64_t{1} << 30);
  num("MEDIAGEN_UPLOAD_RATE_WINDOW_SECONDS", c.upload_rate_window_seconds, 1, 3600);
  num("MEDIAGEN_UPLOAD_GRACE_SECONDS", c.upload_grace_seconds, 0, 3600);
  num("MEDIAGEN_READ_TIMEOUT_SECONDS", c.read_timeout_seconds, 1, 3600);
  num("MEDIAGEN_IDLE_TIMEOUT_SECONDS", c.idle_timeout_seconds, 1, 86400);
  num("MEDIAGEN_SHUTDOWN_GRACE_SECONDS", c.shutdown_grace_seconds, 0, 3600);
  num("MEDIAGEN_WS_ACTIVITY_TIMEOUT_SECONDS", c.ws_activity_timeout_seconds, 1, 3600);
  num("MEDIAGEN_WS_PONG_TIMEOUT_SECONDS", c.ws_pong_timeout_seconds, 1, 600);
  num("MEDIAGEN_WS_MAX_CONNECTIONS", c.ws_max_connections, 1, 10000000);
  num("MEDIAGEN_WS_MAX_CONNECTIONS_PER_ADDRESS", c.ws_max_connections_per_address, 1, 10000000);
  num("MEDIAGEN_UNKNOWN_KEY_BUDGET_PER_MINUTE", c.unknown_key_budget_per_minute, 0, 1000000);
  num("MEDIAGEN_WS_MAX_MESSAGE_BYTES", c.ws_max_message_bytes, 1024, 1024 * 1024);
  num("MEDIAGEN_WS_MAX_SUBSCRIPTIONS", c.ws_max_subscriptions, 1, 10000);
}

Config Config::from_env(const std::function<std::optional<std::string>(const char*)>& getenv) {
  Config c;
  auto str = [&](const char* name, std::string& field) { field = getenv(name).value_or(field); };
  auto num = [&](const char* name, auto& field, std::int64_t min, std::int64_t max) {
    if (auto v = getenv(name)) field = static_cast<std::remove_reference_t<decltype(field)>>(parse_int(name, *v, min, max));
  };
  auto endpoint = [&](const char* name, Endpoint& field) {
    if (auto v = getenv(name)) {
      try {
        field = parse_endpoint(*v);
      } catch (const std::invalid_argument& e) {
        throw std::invalid_argument(std::string(name) + ": " + e.what());
      }
    }
  };
  endpoint("MEDIAGEN_LISTEN", c.listen);
  endpoint("MEDIAGEN_ADMIN_LISTEN", c.admin_listen);
  str("MEDIAGEN_DATABASE_URL", c.database_url);
  str("MEDIAGEN_REDIS_URL", c.redis_url);
  str("MEDIAGEN_REDIS_PREFIX", c.redis_prefix);
  str("MEDIAGEN_API_PREFIX", c.api_prefix);
  str("MEDIAGEN_PUBLIC_URL", c.public_url);
  str("MEDIAGEN_STORAGE_DIR", c.storage_dir);
  read_storage_settings(c, getenv);
  str("MEDIAGEN_SECRET", c.secret);
  str("MEDIAGEN_PUSHER_APP_ID", c.pusher_app_id);
  str("MEDIAGEN_PUSHER_APP_KEY", c.pusher_key);
  str("MEDIAGEN_PUSHER_KEY", c.pusher_key);
  str("MEDIAGEN_PUSHER_APP_SECRET", c.pusher_secret);
  str("MEDIAGEN_PUSHER_SECRET", c.pusher_secret);
  str("MEDIAGEN_LOG_LEVEL", c.log_level);
  str("MEDIAGEN_DOCS_URL", c.docs_url);
  str("MEDIAGEN_DEVELOPERS_URL", c.developers_url);
  num("MEDIAGEN_IO_THREADS", c.io_threads, 1, 64);
  // Unset: one per core. 0: this instance serves the API only and generates nothing.
  c.workers = -1;
  num("MEDIAGEN_WORKERS", c.workers, 0, 256);
  num("MEDIAGEN_LEASE_SECONDS", c.lease_seconds, 1, 3600);
  num("MEDIAGEN_SWEEP_INTERVAL_MS", c.sweep_interval_ms, 10, 600000);
  num("MEDIAGEN_RETENTION_SECONDS", c.retention_seconds, 0, 86400 * 3650);
  num("MEDIAGEN_COMPENSATE_AFTER_SECONDS", c.compensate_after_seconds, 0, 86400 * 3650);
  num("MEDIAGEN_LINK_TTL_SECONDS", c.link_ttl_seconds, 1, 86400 * 7);
  num("MEDIAGEN_ENGINE_DELAY_MS", c.engine_delay_ms, 0, 600000);
  str("MEDIAGEN_ENGINE_FAIL_MARKER", c.engine_fail_marker);
  str("MEDIAGEN_SOUNDFONT", c.soundfont);
  read_upstream_settings(c, getenv);
  if (auto v = getenv("MEDIAGEN_CONTENT_POLICY")) c.content_policy = split_list(*v);
  num("MEDIAGEN_DB_POOL_SIZE", c.db_pool_size, 1, 256);
  num("MEDIAGEN_DB_READ_CONNECTIONS", c.db_read_connections, 1, 256);
  num("MEDIAGEN_INSTANCES", c.instances, 1, 1000);
  num("MEDIAGEN_DB_REQUEST_DEADLINE_MS", c.db_request_deadline_ms, 100, 600000);
  num("MEDIAGEN_DB_STATEMENT_TIMEOUT_MS", c.db_statement_timeout_ms, 100, 3600000);
  num("MEDIAGEN_DB_LOCK_TIMEOUT_MS", c.db_lock_timeout_ms, 100, 3600000);
  num("MEDIAGEN_DB_CONNECT_TIMEOUT_SECONDS", c.db_connect_timeout_seconds, 1, 600);
  num("MEDIAGEN_KEY_CACHE_TTL_SECONDS", c.key_cache_ttl_seconds, 0, 86400 * 7);
  num("MEDIAGEN_PROFILE_CACHE_TTL_SECONDS", c.profile_cache_ttl_seconds, 0, 3600);
  num("MEDIAGEN_BAN_THRESHOLD", c.ban_threshold, 1, 1000000);
  num("MEDIAGEN_BAN_WINDOW_SECONDS", c.ban_window_seconds, 1, 86400 * 7);
  num("MEDIAGEN_MAX_CONNECTIONS", c.max_connections, 1, 1000000);
  num("MEDIAGEN_HEADER_LIMIT_BYTES", c.header_limit_bytes, 1024, 1024 * 1024);
  num("MEDIAGEN_BODY_LIMIT_BYTES", c.body_limit_bytes, 1024, std::int64_t{1} << 32);
  read_connection_limits(c, num);
  if (auto v = getenv("MEDIAGEN_BAN_LADDER_SECONDS")) c.ban_ladder_seconds = parse_ladder("MEDIAGEN_BAN_LADDER_SECONDS", *v);
  // A ban event's step is read back within [1, 1000] (cache::kMaxBanStep).
  if (c.ban_ladder_seconds.size() > 1000) throw std::invalid_argument("MEDIAGEN_BAN_LADDER_SECONDS: at most 1000 steps");
  if (auto v = getenv("MEDIAGEN_POLICY_COOLDOWN_SECONDS")) c.policy_cooldown_seconds = parse_cooldown_ladder(*v);
  str("MEDIAGEN_WEBHOOK_ALLOW_HOSTS", c.webhook_allow_hosts);
  num("MEDIAGEN_WEBHOOK_TIMEOUT_MS", c.webhook_timeout_ms, 100, 600000);
  num("MEDIAGEN_WEBHOOK_MAX_IN_FLIGHT", c.webhook_max_in_flight, 1, 4096);
  num("MEDIAGEN_WEBHOOK_MAX_IN_FLIGHT_PER_URL", c.webhook_max_in_flight_per_url, 1, 1024);
  if (auto v = getenv("MEDIAGEN_WEBHOOK_RESOLVE")) c.webhook_resolve = split(*v, ',');
  if (auto v = getenv("MEDIAGEN_WEBHOOK_RETRY_SCHEDULE")) c.webhook_retry_schedule = parse_webhook_schedule(*v);
  if (auto v = getenv("MEDIAGEN_TRUSTED_PROXIES")) c.trusted_proxies = split(*v, ',');
  if (c.redis_url.rfind("redis://", 0) != 0) {
    throw std::invalid_argument("MEDIAGEN_REDIS_URL: expected redis://[:password@]host[:port][/db], got '" +
                                redact_url(c.redis_url) + "'");
  }
  if (c.api_prefix.empty() || c.api_prefix.front() != '/') c.api_prefix = "/" + c.api_prefix;
  while (c.api_prefix.size() > 1 && c.api_prefix.back() == '/') c.api_prefix.pop_back();
  if (c.workers < 0) c.workers = static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
  return c;
}

Config Config::from_process_env() {
  return from_env([](const char* name) -> std::optional<std::string> {
    const char* v = std::getenv(name);
    if (!v) return std::nullopt;
    return std::string(v);
  });
}

}  // namespace mediagen
