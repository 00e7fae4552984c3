#pragma once
// Request counters by route and status and a latency histogram, in Prometheus text format.
// Lock-free on the request path: fixed arrays of atomics sized when routes are registered.
#include <array>
#include <atomic>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "mediagen/core/counters.hpp"

namespace mediagen::http {

class Metrics {
 public:
  explicit Metrics(InfraCounters& infra) : infra_(infra) {}

  // Sets the route labels, index = Route::metrics_index; one more label, "none", counts requests
  // that matched no route (unknown paths, bans, malformed requests).
  void set_routes(std::vector<std::string> labels);
  std::size_t none_index() const { return labels_.size() - 1; }

  void observe(std::size_t route_index, int status, double seconds);
  void add_gauge_source(std::function<void(std::string&)> source) { gauges_.push_back(std::move(source)); }

  std::atomic<std::int64_t> connections_open{0};
  std::atomic<std::uint64_t> connections_refused{0};

  std::string render() const;
  InfraCounters& infra() { return infra_; }

 private:
  static constexpr std::array<double, 13> kBuckets{0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05,
                                                   0.1,    0.25,  0.5,    1.0,   2.5,   5.0};
  struct RouteStats {
    std::array<std::atomic<std::uint64_t>, 600> by_status{};
    std::array<std::atomic<std::uint64_t>, kBuckets.size() + 1> buckets{};
    std::atomic<std::uint64_t> sum_micros{0};
    std::atomic<std::uint64_t> count{0};
  };
  InfraCounters& infra_;
  std::vector<std::string> labels_{"none"};
  std::vector<std::unique_ptr<RouteStats>> stats_ = [] {
    std::vector<std::unique_ptr<RouteStats>> v;
    v.push_back(std::make_unique<RouteStats>());
    return v;
  }();
  std::vector<std::function<void(std::string&)>> gauges_;
};

}  // namespace mediagen::http
