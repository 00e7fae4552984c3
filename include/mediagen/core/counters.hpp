#pragma once
#include <atomic>
#include <cstdint>

namespace mediagen {

// Counts of round trips to the stores, shown on /metrics: they prove a hot path does none.
struct InfraCounters {
  std::atomic<std::uint64_t> db_queries{0};
  std::atomic<std::uint64_t> redis_commands{0};
  std::atomic<std::uint64_t> key_cache_hits{0};
  std::atomic<std::uint64_t> key_cache_misses{0};
};

}  // namespace mediagen
