#include "mediagen/http/metrics.hpp"

#include <cstdio>

namespace mediagen::http {

void Metrics::set_routes(std::vector<std::string> labels) {
  labels.emplace_back("none");
  labels_ = std::move(labels);
  stats_.clear();
  for (std::size_t i = 0; i < labels_.size(); ++i) stats_.push_back(std::make_unique<RouteStats>());
}

void Metrics::observe(std::size_t route_index, int status, double seconds) {
  if (route_index >= stats_.size()) route_index = none_index();
  auto& s = *stats_[route_index];
  if (status >= 100 && status < 600) s.by_status[static_cast<std::size_t>(status)].fetch_add(1, std::memory_order_relaxed);
  std::size_t b = 0;
  while (b < kBuckets.size() && seconds > kBuckets[b]) ++b;
  s.buckets[b].fetch_add(1, std::memory_order_relaxed);
  s.sum_micros.fetch_add(static_cast<std::uint64_t>(seconds * 1e6), std::memory_order_relaxed);
  s.count.fetch_add(1, std::memory_order_relaxed);
}

std::string Metrics::render() const {
  std::string out;
  char buf[256];
  out += "# HELP mediagen_http_requests_total HTTP requests by route and status.\n";
  out += "# TYPE mediagen_http_requests_total counter\n";
  for (std::size_t r = 0; r < labels_.size(); ++r) {
    for (std::size_t st = 100; st < 600; ++st) {
      auto n = stats_[r]->by_status[st].load(std::memory_order_relaxed);
      if (n == 0) continue;
      std::snprintf(buf, sizeof buf, "mediagen_http_requests_total{route=\"%s\",status=\"%zu\"} %llu\n",
                    labels_[r].c_str(), st, static_cast<unsigned long long>(n));
      out += buf;
    }
  }
  out += "# HELP mediagen_http_request_duration_seconds Time from a request's header to its response.\n";
  out += "# TYPE mediagen_http_request_duration_seconds histogram\n";
  for (std::size_t r = 0; r < labels_.size(); ++r) {
    const auto& s = *stats_[r];
    auto count = s.count.load(std::memory_order_relaxed);
    if (count == 0) continue;
    std::uint64_t cumulative = 0;
    for (std::size_t b = 0; b <= kBuckets.size(); ++b) {
      cumulative += s.buckets[b].load(std::memory_order_relaxed);
      if (b < kBuckets.size()) {
        std::snprintf(buf, sizeof buf, "mediagen_http_request_duration_seconds_bucket{route=\"%s\",le=\"%g\"} %llu\n",
                      labels_[r].c_str(), kBuckets[b], static_cast<unsigned long long>(cumulative));
      } else {
        std::snprintf(buf, sizeof buf, "mediagen_http_request_duration_seconds_bucket{route=\"%s\",le=\"+Inf\"} %llu\n",
                      labels_[r].c_str(), static_cast<unsigned long long>(cumulative));
      }
      out += buf;
    }
    std::snprintf(buf, sizeof buf, "mediagen_http_request_duration_seconds_sum{route=\"%s\"} %.6f\n",
                  labels_[r].c_str(), static_cast<double>(s.sum_micros.load()) / 1e6);
    out += buf;
    std::snprintf(buf, sizeof buf, "mediagen_http_request_duration_seconds_count{route=\"%s\"} %llu\n",
                  labels_[r].c_str(), static_cast<unsigned long long>(count));
    out += buf;
  }
  auto counter = [&](const char* name, const char* help, std::uint64_t v) {
    std::snprintf(buf, sizeof buf, "# HELP %s %s\n# TYPE %s counter\n%s %llu\n", name, help, name, name,
                  static_cast<unsigned long long>(v));
    out += buf;
  };
  counter("mediagen_key_cache_hits_total", "API key lookups answered from the in-process cache.", infra_.key_cache_hits.load());
  counter("mediagen_key_cache_misses_total", "API key lookups that went to PostgreSQL.", infra_.key_cache_misses.load());
  counter("mediagen_api_keys_malformed_total", "API keys refused for their shape, before any lookup.",
          infra_.keys_malformed.load());
  counter("mediagen_db_deadline_exceeded_total", "Requests answered 503 because PostgreSQL did not answer in time.",
          infra_.pool_deadlines.load());
  out += "# HELP mediagen_contained_failures_total Unexpected failures ended at their boundary (a request, "
         "connection, socket, fan-out message, job or I/O turn), never the process.\n"
         "# TYPE mediagen_contained_failures_total counter\n";
  for (std::size_t b = 0; b < kBoundaries; ++b) {
    std::snprintf(buf, sizeof buf, "mediagen_contained_failures_total{boundary=\"%s\"} %llu\n",
                  std::string(to_string(static_cast<Boundary>(b))).c_str(),
                  static_cast<unsigned long long>(infra_.contained[b].load()));
    out += buf;
  }
  counter("mediagen_db_queries_total", "Statements sent to PostgreSQL.", infra_.db_queries.load());
  counter("mediagen_redis_commands_total", "Commands sent to Redis.", infra_.redis_commands.load());
  counter("mediagen_redis_commands_in_transaction_total",
          "Redis commands refused because a database transaction was open on their thread (must stay 0).",
          infra_.redis_in_transaction.load());
  counter("mediagen_connections_refused_total", "Connections closed at once because the cap was reached.",
          connections_refused.load());
  std::snprintf(buf, sizeof buf, "# HELP mediagen_connections_open Open client connections.\n# TYPE mediagen_connections_open gauge\nmediagen_connections_open %lld\n",
                static_cast<long long>(connections_open.load()));
  out += buf;
  for (const auto& g : gauges_) g(out);
  return out;
}

}  // namespace mediagen::http
