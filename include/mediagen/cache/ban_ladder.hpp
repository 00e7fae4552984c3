#pragma once
// The unknown-path ban ladder (spec 4.10, 8.1). Redis is the shared truth: misses are counted
// there per IP and bans are recorded there and published. Each instance keeps the active bans in
// memory (BanList), so the check that runs before every request does no I/O.
#include <cstdint>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "mediagen/core/clock.hpp"

namespace mediagen::cache {

class Redis;

struct Ban {
  TimePoint until;
  std::int64_t step = 0;  // 1-based rung of the ladder
};

struct BanLadderOptions {
  std::vector<std::int64_t> ladder_seconds{300, 600, 1800, 3600, 86400};
  std::int64_t threshold = 20;       // misses ...
  std::int64_t window_seconds = 600; // ... within this window start the next step
  std::int64_t step_memory_seconds = 86400;  // a step is remembered this long after its ban ends
  std::string prefix = "mediagen:";
};

struct MissOutcome {
  std::int64_t misses = 0;  // in the current window, this one included
  std::optional<Ban> ban;   // set when this miss started a ban
};

// Active bans known to this instance. Thread-safe; the check is a hash lookup.
class BanList {
 public:
  std::optional<Ban> check(std::string_view ip, TimePoint now) const;
  void put(std::string ip, Ban ban);
  // Drops ended bans; called whenever a ban is added, so the list stays small.
  void prune(TimePoint now);
  void replace_all(std::unordered_map<std::string, Ban> bans);

 private:
  mutable std::mutex mutex_;
  std::unordered_map<std::string, Ban> bans_;
};

class BanLadder {
 public:
  explicit BanLadder(BanLadderOptions options) : options_(std::move(options)) {}

  const BanLadderOptions& options() const { return options_; }
  std::string channel() const { return options_.prefix + "bans:events"; }

  // Counts one miss; when it reaches the threshold, records and publishes the next ban.
  MissOutcome record_miss(Redis& redis, std::string_view ip, TimePoint now) const;
  // The misses counted in the client's current window, without adding one.
  std::int64_t misses(Redis& redis, std::string_view ip) const;
  // All bans still active (expired ones are pruned from Redis on the way).
  std::unordered_map<std::string, Ban> load_active(Redis& redis, TimePoint now) const;
  // Parses a published event "<ip> <until unix seconds> <step>"; nullopt when malformed.
  static std::optional<std::pair<std::string, Ban>> parse_event(std::string_view payload);

 private:
  BanLadderOptions options_;
};

}  // namespace mediagen::cache
