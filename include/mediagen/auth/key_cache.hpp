#pragma once
// In-process cache of resolved keys: a hot key costs a SHA-256 and a hash lookup, no I/O.
// Entries live `ttl`; a TTL of zero disables the cache. Unknown keys are cached too (as null),
// so a client repeating a bad key does not reach PostgreSQL on every request.
#include <memory>
#include <mutex>
#include <optional>
#include <unordered_map>

#include "mediagen/auth/principal.hpp"
#include "mediagen/core/clock.hpp"

namespace mediagen::auth {

struct DigestHash {
  std::size_t operator()(const crypto::Sha256Digest& d) const noexcept {
    std::size_t h;
    static_assert(sizeof h <= sizeof d);
    __builtin_memcpy(&h, d.data(), sizeof h);  // already uniformly distributed
    return h;
  }
};

class KeyCache {
 public:
  KeyCache(Seconds ttl, const Clock& clock, std::size_t max_entries = 100000)
      : ttl_(ttl), clock_(clock), max_entries_(max_entries) {}

  // nullopt: not cached. A cached null means "no such key".
  std::optional<std::shared_ptr<const Principal>> find(const crypto::Sha256Digest& digest) const;
  void put(const crypto::Sha256Digest& digest, std::shared_ptr<const Principal> principal);
  void invalidate_key(const crypto::Sha256Digest& digest);
  void invalidate_user(UserId user);
  void invalidate_all();
  bool enabled() const { return ttl_.count() > 0; }

 private:
  struct Entry {
    std::shared_ptr<const Principal> principal;
    TimePoint expires;
  };
  Seconds ttl_;
  const Clock& clock_;
  std::size_t max_entries_;
  mutable std::mutex mutex_;
  std::unordered_map<crypto::Sha256Digest, Entry, DigestHash> entries_;
};

}  // namespace mediagen::auth
