#pragma once
// Settings from the environment (CONTRACTS.md); `mediagen serve` flags may override fields.
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

namespace mediagen {

struct Endpoint {
  std::string host;
  std::uint16_t port = 0;  // 0: let the OS pick, the bound port is logged
};

struct Config {
  Endpoint listen{"127.0.0.1", 8080};
  Endpoint admin_listen{"127.0.0.1", 9090};
  std::string database_url = "postgresql:///mediagen";
  std::string redis_url = "redis://127.0.0.1:6379/0";
  std::string redis_prefix = "mediagen:";
  std::string api_prefix = "/api";
  std::string public_url = "http://127.0.0.1:8080";
  std::string storage_dir = "var/storage";
  // The object store: file:///path or s3://BUCKET[/PREFIX]; empty: file:// + storage_dir.
  std::string storage_url;
  // S3 only: a signed download link answers 302 to a presigned S3 URL instead of streaming.
  bool storage_redirect = false;
  // The standard AWS variables (no MEDIAGEN_ prefix), read for an s3:// store.
  std::string aws_endpoint_url;
  std::string aws_region = "us-east-1";
  std::string aws_access_key_id;
  std::string aws_secret_access_key;
  std::string secret;
  std::string pusher_app_id = "mediagen";
  std::string pusher_key = "mediagen-key";
  std::string pusher_secret;
  std::string log_level = "info";
  // The 404 body's `docs` and `developers` links (MEDIAGEN_DOCS_URL, MEDIAGEN_DEVELOPERS_URL);
  // empty: this server's own documentation, see not_found_docs_url() below.
  std::string docs_url;
  std::string developers_url;

  int io_threads = 1;
  int workers = 0;  // generation threads; MEDIAGEN_WORKERS unset: one per core; 0: none here
  std::int64_t lease_seconds = 30;              // a claimed chunk's lease, renewed while it runs
  std::int64_t sweep_interval_ms = 2000;        // lease rescue, re-stitching and the janitor
  std::int64_t retention_seconds = 7 * 86400;   // files and texts after a terminal status (spec 8.2)
  std::int64_t compensate_after_seconds = 3 * 86400;  // an untouched partially_completed order
  std::int64_t link_ttl_seconds = 900;          // signed download links
  // Content policy: chunks containing one of these terms (case-insensitive, whole words) are
  // refused as policy_flagged without being synthesised.
  std::vector<std::string> content_policy;
  // After five consecutive policy-blocked orders, creation pauses this long: the first time the
  // first value, then the next, staying at the last (spec 8.1). Empty ("0"): no cooldown.
  std::vector<std::int64_t> policy_cooldown_seconds{300, 600, 900};
  // Operator drills: chunks containing this marker fail as a technical error, and every chunk
  // takes this much longer. Empty / 0 in normal operation.
  std::string engine_fail_marker;
  std::int64_t engine_delay_ms = 0;
  // The General MIDI soundfont the music engine renders with (loaded once per process, at the
  // first music order); empty: the engine's default (Debian's fluid-soundfont-gm).
  std::string soundfont;
  // Upstream provider engines (engines/upstream.hpp): timeouts, retries, the per-upstream cap on
  // requests in flight and the circuit breaker.
  std::int64_t upstream_connect_timeout_ms = 5000;
  std::int64_t upstream_timeout_ms = 120000;
  int upstream_attempts = 3;
  std::int64_t upstream_backoff_ms = 250;
  int upstream_max_in_flight = 4;
  int upstream_breaker_failures = 5;
  std::int64_t upstream_breaker_open_ms = 30000;
  int db_pool_size = 8;
  // Connections of the reads served from the I/O threads (GET /orders/{id}, GET /user), beside
  // the pool's.
  int db_read_connections = 8;
  // Instances sharing this database and Redis: with Redis unreachable, each admits its share of a
  // key's request windows (limit / instances).
  int instances = 1;
  // PostgreSQL limits: a request waits at most db_request_deadline_ms for its answer (503 then);
  // a statement runs at most db_statement_timeout_ms, waits for a lock at most db_lock_timeout_ms.
  std::int64_t db_request_deadline_ms = 8000;
  std::int64_t db_statement_timeout_ms = 8000;
  std::int64_t db_lock_timeout_ms = 4000;
  std::int64_t db_connect_timeout_seconds = 3;

  std::int64_t key_cache_ttl_seconds = 3600;
  // GET /user's profiles: dropped at every change announced; the TTL bounds what a lost
  // announcement or a write from outside the server leaves (account/profile_cache.hpp).
  std::int64_t profile_cache_ttl_seconds = 5;
  std::vector<std::int64_t> ban_ladder_seconds{300, 600, 1800, 3600, 86400};
  std::int64_t ban_threshold = 20;
  std::int64_t ban_window_seconds = 600;
  std::vector<std::string> trusted_proxies;
  // Lookups of keys that do not exist, per client address and minute; past it 429 before the
  // lookup (0: no budget).
  std::int64_t unknown_key_budget_per_minute = 60;

  std::size_t max_connections = 10000;
  std::size_t header_limit_bytes = 8192;
  std::size_t body_limit_bytes = 1024 * 1024;
  // Memory all multipart uploads being read at once may hold together (503 beyond it).
  std::size_t upload_budget_bytes = std::size_t{512} << 20;
  // Uploads one key may have being read at once (429 too_many_uploads beyond it), and the pace an
  // upload must keep: after the grace, at least this many bytes a second averaged over the window
  // (408 upload_too_slow below it; 0 turns the minimum off).
  std::size_t uploads_per_key = 2;
  std::int64_t upload_min_rate = 16 * 1024;
  std::int64_t upload_rate_window_seconds = 30;
  std::int64_t upload_grace_seconds = 10;
  std::int64_t read_timeout_seconds = 10;
  std::int64_t idle_timeout_seconds = 60;
  std::int64_t shutdown_grace_seconds = 20;

  // Realtime sockets (Pusher protocol 7).
  std::int64_t ws_activity_timeout_seconds = 120;
  std::int64_t ws_pong_timeout_seconds = 30;
  std::size_t ws_max_connections = 100000;
  std::size_t ws_max_connections_per_address = 1000;  // open sockets per client address
  std::size_t ws_max_message_bytes = 10240;
  std::size_t ws_max_subscriptions = 100;

  // Webhooks (openapi: "Webhooks"): hosts plain http and private addresses may be used for
  // (comma-separated host or host:port), one attempt's limit, and the schedule of attempts
  // (seconds after the previous one; the first is the first attempt's delay).
  std::string webhook_allow_hosts;
  std::int64_t webhook_timeout_ms = 10000;
  std::vector<std::int64_t> webhook_retry_schedule{0, 5, 300, 1800, 7200, 18000, 36000, 36000};
  // Deliveries in flight at once on this instance, and to one URL.
  int webhook_max_in_flight = 64;
  int webhook_max_in_flight_per_url = 4;
  // Names pinned to addresses for deliveries, in curl's --resolve form (host:port:address), for
  // split-horizon DNS; the address guard applies to a pinned address like to a resolved one.
  std::vector<std::string> webhook_resolve;

  // Reads MEDIAGEN_* variables through `getenv`; throws std::invalid_argument naming the variable.
  static Config from_env(const std::function<std::optional<std::string>(const char*)>& getenv);
  static Config from_process_env();

  // docs_url, or {public_url}/docs: the page that renders the API's description.
  std::string not_found_docs_url() const;
  // developers_url, or {public_url}/docs#section/Conventions: where that description starts on
  // what every call shares (envelope, errors, keys), which a developer who missed a path wants.
  std::string not_found_developers_url() const;
};

Endpoint parse_endpoint(const std::string& text);  // "host:port"; throws std::invalid_argument

}  // namespace mediagen
