#pragma once
// How many lookups of keys that turn out not to exist one client address may cost PostgreSQL:
// `per_minute` in each fixed minute of the clock. Past it, a key this instance has not seen
// resolve is refused (429 too_many_unknown_keys) before any lookup until the minute ends. A key
// that did resolve here before (vouched) is still looked up, so a script flooding random keys
// from an office's address does not lock out the keys the office uses; keys already in the key
// cache never get here at all. Counted in this process's memory: instances count apart.
#include <atomic>
#include <cstddef>
#include <cstdint>
#include <mutex>
#include <string>
#include <string_view>
#include <unordered_map>
#include <unordered_set>

#include "mediagen/auth/key_cache.hpp"
#include "mediagen/core/clock.hpp"
#include "mediagen/core/crypto.hpp"

namespace mediagen::auth {

class UnknownKeyBudget {
 public:
  // per_minute 0: no budget. vouched_limit bounds the set of keys seen to resolve (emptied when full).
  explicit UnknownKeyBudget(std::int64_t per_minute, std::size_t vouched_limit = 100000)
      : per_minute_(per_minute), vouched_limit_(vouched_limit) {}

  // Seconds until the address may have unknown keys looked up again (the end of this minute),
  // or 0 when this lookup may go ahead. A refusal is counted.
  std::int64_t refusal(std::string_view ip, const crypto::Sha256Digest& digest, TimePoint now);
  // The outcome of a lookup from `ip`: no key (counted against the address), or a key.
  void not_found(std::string_view ip, TimePoint now);
  void found(const crypto::Sha256Digest& digest);

  std::int64_t per_minute() const { return per_minute_; }
  std::uint64_t refused() const { return refused_.load(std::memory_order_relaxed); }

 private:
  // Starts a new minute's counts when `now` is past the current one.
  void roll(std::int64_t minute);

  const std::int64_t per_minute_;
  const std::size_t vouched_limit_;
  std::mutex mutex_;
  std::int64_t minute_ = 0;  // the minute (unix seconds / 60) that failures_ counts
  std::unordered_map<std::string, std::int64_t> failures_;
  std::unordered_set<crypto::Sha256Digest, DigestHash> vouched_;
  std::atomic<std::uint64_t> refused_{0};
};

}  // namespace mediagen::auth
