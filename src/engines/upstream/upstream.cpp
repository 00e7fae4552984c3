// Upstreams: one request with its guard, retries and failure mapping; the metrics.
#include "mediagen/engines/upstream.hpp"

#include <algorithm>
#include <random>

#include "upstream_guard.hpp"
#include "upstream_http.hpp"

namespace mediagen::engines {
namespace {

using upstream_detail::Admission;
using upstream_detail::HttpAnswer;
using upstream_detail::HttpCall;
using upstream_detail::TransportKind;

std::string_view transport_outcome(TransportKind kind) {
  switch (kind) {
    case TransportKind::timeout: return "timeout";
    case TransportKind::connect: return "connect_error";
    case TransportKind::reset: return "reset";
    case TransportKind::too_large: return "too_large";
    case TransportKind::other: return "transport_error";
  }
  return "transport_error";
}

// Full jitter: a random wait in [0, base * 2^attempt].
std::chrono::milliseconds backoff(std::chrono::milliseconds base, int attempt) {
  thread_local std::mt19937_64 random{std::random_device{}()};
  const auto ceiling = base.count() << std::min(attempt, 10);
  std::uniform_int_distribution<std::int64_t> pick(0, std::max<std::int64_t>(0, ceiling));
  return std::chrono::milliseconds(pick(random));
}

// An admitted call's slot, given back however the call ends (a throw counts as a failure).
class Slot {
 public:
  explicit Slot(upstream_detail::Guard& g) : guard_(g) {}
  Slot(const Slot&) = delete;
  Slot& operator=(const Slot&) = delete;
  ~Slot() {
    if (!done_) guard_.finish(true);
  }
  void finish(bool failed) {
    done_ = true;
    guard_.finish(failed);
  }

 private:
  upstream_detail::Guard& guard_;
  bool done_ = false;
};

// The last attempt's end, as the chunk sees it.
struct Ending {
  std::string outcome;  // metric label
  bool retryable = false;
  std::optional<long> retry_after;
  std::optional<EngineFailure> failure;  // set when the call ends here
};

Ending judge(const HttpAnswer& a) {
  const auto status = a.status;
  if (status >= 200 && status < 300) return {"ok", false, std::nullopt, std::nullopt};
  const std::string said = "upstream answered " + std::to_string(status) + ": " + error_summary(a.body);
  if (status == 401 || status == 403) {
    return {"unauthorized", false, std::nullopt, EngineFailure::technical("upstream_unauthorized", said)};
  }
  if (status == 429 || status >= 500) {
    return {status == 429 ? "rate_limited" : "server_error", true, a.retry_after_seconds,
            EngineFailure::technical("upstream_unavailable", said)};
  }
  if ((status == 400 || status == 422) && is_content_refusal(a.body)) {
    return {"policy", false, std::nullopt, EngineFailure::policy(said)};
  }
  return {"rejected", false, std::nullopt, EngineFailure::technical("upstream_rejected", said)};
}

}  // namespace

std::optional<UpstreamKind> parse_upstream_kind(std::string_view engine) {
  if (engine == "openai") return UpstreamKind::openai;
  if (engine == "elevenlabs") return UpstreamKind::elevenlabs;
  return std::nullopt;
}

Upstreams::Upstreams(UpstreamOptions options) : options_(std::move(options)) {
  upstream_detail::ensure_curl();
}

void Upstreams::stop() {
  {
    std::lock_guard lock(pause_mutex_);
    stopping_ = true;
  }
  pause_cv_.notify_all();
}

void Upstreams::pause(std::chrono::milliseconds wait) {
  if (options_.sleep) return options_.sleep(wait);
  std::unique_lock lock(pause_mutex_);
  pause_cv_.wait_for(lock, wait, [this] { return stopping_.load(); });
}

Upstreams::~Upstreams() = default;

upstream_detail::Guard& Upstreams::guard(const UpstreamTarget& target) {
  const std::string key = target.service + '|' + target.url;
  std::lock_guard lock(mutex_);
  auto& slot = guards_[key];
  if (!slot) {
    slot = std::make_unique<upstream_detail::Guard>(options_.max_in_flight, options_.breaker_failures,
                                                    options_.breaker_open, options_.now, options_.total_timeout);
  }
  return *slot;
}

void Upstreams::count(const std::string& service, std::string_view outcome) {
  std::lock_guard lock(mutex_);
  ++outcomes_[{service, std::string(outcome)}];
}

boost::system::result<HttpAnswer, EngineFailure> Upstreams::call(const UpstreamTarget& target, const HttpCall& request) {
  auto& g = guard(target);
  const Admission admitted = g.enter();
  if (admitted != Admission::admitted) {
    const bool open = admitted == Admission::circuit_open;
    count(target.service, open ? "circuit_open" : "busy");
    return EngineFailure::technical("upstream_unavailable",
                                    open ? "upstream circuit open: failing fast" : "upstream busy: no slot in time");
  }
  Slot slot(g);
  const upstream_detail::HttpLimits limits{options_.connect_timeout, options_.total_timeout, options_.max_response_bytes,
                                           &stopping_};
  Ending end;
  for (int attempt = 0; attempt < std::max(1, options_.max_attempts); ++attempt) {
    if (attempt > 0) {
      auto wait = backoff(options_.backoff_base, attempt - 1);
      if (end.retry_after) wait = std::max(wait, std::chrono::milliseconds(*end.retry_after * 1000));
      pause(wait);
    }
    if (stopping_) {
      slot.finish(false);
      return EngineFailure::technical("upstream_unavailable", "the server is stopping");
    }
    auto answer = upstream_detail::http_exchange(request, limits);
    if (answer) {
      end = judge(*answer);
      count(target.service, end.outcome);
      if (!end.failure) {
        slot.finish(false);
        return std::move(*answer);
      }
    } else {
      const auto& e = answer.error();
      const std::string outcome(transport_outcome(e.kind));
      const bool too_large = e.kind == TransportKind::too_large;
      end = {outcome, !too_large, std::nullopt,
             EngineFailure::technical(too_large ? "upstream_bad_audio" : "upstream_unavailable",
                                      "upstream " + outcome + ": " + e.detail)};
      count(target.service, outcome);
    }
    // A Retry-After longer than we wait for is an answer: the upstream is not coming back soon.
    const bool long_wait = end.retry_after && *end.retry_after * 1000 > options_.max_retry_after.count();
    if (!end.retryable || long_wait) break;
  }
  const bool counts = end.failure->reason == "upstream_unavailable" || end.failure->reason == "upstream_unauthorized";
  slot.finish(counts);
  return std::move(*end.failure);
}

void Upstreams::render_metrics(std::string& out) const {
  std::lock_guard lock(mutex_);
  out += "# HELP mediagen_upstream_requests_total Requests to upstream providers by service and outcome.\n";
  out += "# TYPE mediagen_upstream_requests_total counter\n";
  for (const auto& [key, n] : outcomes_) {
    out += "mediagen_upstream_requests_total{service=\"" + key.first + "\",outcome=\"" + key.second + "\"} " +
           std::to_string(n) + "\n";
  }
  out += "# HELP mediagen_upstream_circuit_open Whether an upstream's circuit breaker is open (1).\n";
  out += "# TYPE mediagen_upstream_circuit_open gauge\n";
  for (const auto& [key, guard] : guards_) {
    const auto service = key.substr(0, key.find('|'));
    out += "mediagen_upstream_circuit_open{service=\"" + service + "\"} " + (guard->open() ? "1" : "0") + "\n";
  }
}

}  // namespace mediagen::engines
