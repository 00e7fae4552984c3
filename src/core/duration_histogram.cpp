#include "mediagen/core/duration_histogram.hpp"

#include <cstdio>

namespace mediagen {

void DurationHistogram::observe(std::chrono::nanoseconds d) {
  const auto nanos = d.count() < 0 ? std::int64_t{0} : static_cast<std::int64_t>(d.count());
  const double seconds = static_cast<double>(nanos) / 1e9;
  std::size_t b = 0;
  while (b < kBounds.size() && seconds > kBounds[b]) ++b;
  buckets_[b].fetch_add(1, std::memory_order_relaxed);
  sum_nanos_.fetch_add(static_cast<std::uint64_t>(nanos), std::memory_order_relaxed);
}

std::uint64_t DurationHistogram::count() const {
  std::uint64_t n = 0;
  for (const auto& b : buckets_) n += b.load(std::memory_order_relaxed);
  return n;
}

void DurationHistogram::render(std::string& out, std::string_view name, std::string_view help) const {
  const std::string n(name);
  out += "# HELP " + n + " " + std::string(help) + "\n# TYPE " + n + " histogram\n";
  char buf[160];
  std::uint64_t cumulative = 0;
  for (std::size_t b = 0; b <= kBounds.size(); ++b) {
    cumulative += buckets_[b].load(std::memory_order_relaxed);
    if (b < kBounds.size()) {
      std::snprintf(buf, sizeof buf, "_bucket{le=\"%g\"} %llu\n", kBounds[b], static_cast<unsigned long long>(cumulative));
    } else {
      std::snprintf(buf, sizeof buf, "_bucket{le=\"+Inf\"} %llu\n", static_cast<unsigned long long>(cumulative));
    }
    out += n;
    out += buf;
  }
  std::snprintf(buf, sizeof buf, "_sum %.9f\n", static_cast<double>(sum_nanos_.load(std::memory_order_relaxed)) / 1e9);
  out += n;
  out += buf;
  // The buckets were read one by one while others may observe: +Inf is the count that matches them.
  std::snprintf(buf, sizeof buf, "_count %llu\n", static_cast<unsigned long long>(cumulative));
  out += n;
  out += buf;
}

}  // namespace mediagen
