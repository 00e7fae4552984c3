#pragma once
// The unknown-path ban ladder (spec 4.10, 8.1). Redis is the shared truth: misses are counted
// there per IP and bans are recorded there and published. Each instance keeps the active bans in
// memory (BanList), so the check that runs before every request does no I/O.
//
// A ban travels (published, and recorded in the bans hash) signed with a key derived from the
// shared secret (core/signed_message.hpp): whoever can write to Redis without the secret cannot
// ban an address. An event whose signature is missing or wrong is dropped and counted.
#include <atomic>
#include <cstdint>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "mediagen/core/clock.hpp"
#include "mediagen/core/signed_message.hpp"

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
  // Shared by every instance (MEDIAGEN_SECRET): ban events are signed with a key derived from it.
  std::string secret;
};

// The label of the ban events' key, distinct from every other key derived from the secret.
inline constexpr std::string_view kBanKeyLabel = "mediagen ban events v1";
// A ban event, signature included, is far below this; a longer payload is not read.
inline constexpr std::size_t kMaxBanEventBytes = 64 + 1 + 128;
// The last second a ban may end: what a TimePoint can hold (and a calendar can print).
std::int64_t max_ban_unix_seconds();
// Rungs beyond this are not a ladder anyone configures; a larger step is malformed.
inline constexpr std::int64_t kMaxBanStep = 1000;

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
  explicit BanLadder(BanLadderOptions options)
      : options_(std::move(options)), signer_(derive_key(options_.secret, kBanKeyLabel), kMaxBanEventBytes) {}

  const BanLadderOptions& options() const { return options_; }
  std::string channel() const { return options_.prefix + "bans:events"; }

  // Counts one miss; when it reaches the threshold, records and publishes the next ban, signed.
  MissOutcome record_miss(Redis& redis, std::string_view ip, TimePoint now) const;
  // The misses counted in the client's current window, without adding one.
  std::int64_t misses(Redis& redis, std::string_view ip) const;
  // All bans still active and rightly signed (expired ones are pruned from Redis on the way;
  // badly signed ones are skipped and counted).
  std::unordered_map<std::string, Ban> load_active(Redis& redis, TimePoint now) const;
  // A signed event as published: the ban when the signature is right and the event well formed.
  // Otherwise nullopt; a missing or wrong signature is counted (unsigned_events).
  std::optional<std::pair<std::string, Ban>> read_event(std::string_view payload) const;
  // The signed payload of an event (what record_miss publishes).
  std::string signed_event(std::string_view ip, const Ban& ban) const;
  // Parses the message of an event, "<ip> <until unix seconds> <step>", bounded: at most 128
  // bytes, an address of at most 45 characters, until within [0, max_ban_unix_seconds()], step
  // within [1, kMaxBanStep]; nullopt otherwise.
  static std::optional<std::pair<std::string, Ban>> parse_event(std::string_view message);
  // Events dropped for a missing or wrong signature.
  std::uint64_t unsigned_events() const { return unsigned_.load(std::memory_order_relaxed); }

 private:
  BanLadderOptions options_;
  MessageSigner signer_;
  mutable std::atomic<std::uint64_t> unsigned_{0};
};

}  // namespace mediagen::cache
