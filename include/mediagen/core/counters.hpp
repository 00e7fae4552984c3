#pragma once
#include <array>
#include <atomic>
#include <cstddef>
#include <cstdint>
#include <string_view>

namespace mediagen {

// The places where remote input is handled. A failure there ends only what it names: a request
// (500), a socket (close 1011), a fan-out message (dropped), a job (a technical failure of that
// chunk), or one turn of an I/O thread (which then runs on). Never the process.
enum class Boundary : std::size_t { request, connection, socket, fanout, job, io_thread };
inline constexpr std::size_t kBoundaries = 6;

constexpr std::string_view to_string(Boundary b) {
  constexpr std::array<std::string_view, kBoundaries> names{"request", "connection", "socket", "fanout", "job",
                                                             "io_thread"};
  return names[static_cast<std::size_t>(b)];
}

// Counts of round trips to the stores, shown on /metrics: they prove a hot path does none.
struct InfraCounters {
  std::atomic<std::uint64_t> db_queries{0};
  std::atomic<std::uint64_t> redis_commands{0};
  // Redis commands refused because their thread was inside a database transaction (a bug).
  std::atomic<std::uint64_t> redis_in_transaction{0};
  std::atomic<std::uint64_t> key_cache_hits{0};
  std::atomic<std::uint64_t> key_cache_misses{0};
  // Keys refused for their shape alone, before any hashing or lookup.
  std::atomic<std::uint64_t> keys_malformed{0};
  // Requests answered 503 because their database job did not finish within the deadline.
  std::atomic<std::uint64_t> pool_deadlines{0};
  // Unexpected failures contained at each boundary (mediagen_contained_failures_total).
  std::array<std::atomic<std::uint64_t>, kBoundaries> contained{};

  void count_contained(Boundary b) { contained[static_cast<std::size_t>(b)].fetch_add(1, std::memory_order_relaxed); }
};

}  // namespace mediagen
