#pragma once
// In-process cache of resolved keys: a hot key costs a SHA-256 and a hash lookup, no I/O.
// Entries live `ttl`; a TTL of zero disables the cache. Unknown keys are cached too (as null),
// so a client repeating a bad key does not reach PostgreSQL on every request.
//
// Two least-recently-used lists with their own bounds: known keys, and unknown ones. A flood of
// random well-formed keys churns only the unknown list, so it never pushes a live key out (nor
// empties the cache); each list drops its least recently used entry when full.
//
// Generations: every invalidation bumps one counter. A lookup takes a ticket before it reads
// PostgreSQL and hands it to put, which keeps nothing when an invalidation came in between: the
// read may predate it, and would otherwise bring a disabled key back for the whole TTL.
#include <cstddef>
#include <cstdint>
#include <list>
#include <memory>
#include <mutex>
#include <optional>
#include <unordered_map>

#include "mediagen/access/principal.hpp"
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

struct KeyCacheLimits {
  std::size_t known = 100000;
  std::size_t unknown = 20000;
};

class KeyCache {
 public:
  KeyCache(Seconds ttl, const Clock& clock, KeyCacheLimits limits = {}) : ttl_(ttl), clock_(clock), limits_(limits) {}

  // Where a lookup stands among the invalidations: taken before the key is read.
  struct ReadTicket {
    std::uint64_t generation = 0;
  };

  // nullopt: not cached. A cached null means "no such key". A hit makes the entry the most
  // recently used of its list.
  std::optional<std::shared_ptr<const Principal>> find(const crypto::Sha256Digest& digest) const;
  ReadTicket begin_read() const;
  // Caches what a read that began with `read` found, unless an invalidation came since.
  void put(const crypto::Sha256Digest& digest, std::shared_ptr<const Principal> principal, ReadTicket read);
  void invalidate_key(const crypto::Sha256Digest& digest);
  void invalidate_user(UserId user);
  void invalidate_all();
  bool enabled() const { return ttl_.count() > 0; }
  std::size_t size() const;

 private:
  struct Entry {
    crypto::Sha256Digest digest;
    std::shared_ptr<const Principal> principal;
    TimePoint expires;
  };
  using List = std::list<Entry>;
  // One bounded LRU list and its index.
  struct Lru {
    List order;  // front: most recently used
    std::unordered_map<crypto::Sha256Digest, List::iterator, DigestHash> index;
    void erase(List::iterator it);
  };

  Lru& list_for(const std::shared_ptr<const Principal>& p) { return p ? known_ : unknown_; }
  void erase_everywhere(const crypto::Sha256Digest& digest);

  Seconds ttl_;
  const Clock& clock_;
  KeyCacheLimits limits_;
  mutable std::mutex mutex_;
  mutable Lru known_;
  mutable Lru unknown_;
  std::uint64_t generation_ = 0;  // invalidations so far
};

}  // namespace mediagen::auth
