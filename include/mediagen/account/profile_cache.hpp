#pragma once
// In-process cache of GET /user's profiles: a hot account's profile costs a hash lookup, no read.
//
// What drops an entry:
// - a commit that changed the profile (a wallet posting, a subscription, the user row): on this
//   instance at once (db::Db's commit listener), on the others by a signed message on the
//   invalidation channel (app/invalidation.hpp), and after the fan-out reconnected, everything;
// - the end of the plan it shows (a subscription expires without a write);
// - `ttl`, which bounds what a lost message or a write from outside the server (plain SQL) can
//   leave. A TTL of zero disables the cache.
//
// Generations, as in auth::KeyCache: a read takes a ticket before it asks PostgreSQL and hands it
// to put, which keeps nothing when an invalidation came in between (the read may predate it).
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <mutex>
#include <unordered_map>

#include "mediagen/account/users.hpp"
#include "mediagen/core/clock.hpp"

namespace mediagen::account {

class ProfileCache {
 public:
  ProfileCache(std::chrono::milliseconds ttl, const Clock& clock, std::size_t capacity = 50000)
      : ttl_(ttl), clock_(clock), capacity_(capacity) {}

  struct ReadTicket {
    std::uint64_t generation = 0;
  };

  // null: not cached (or expired).
  std::shared_ptr<const Profile> find(UserId id) const;
  ReadTicket begin_read() const;
  // Keeps what a read that began with `read` found, unless an invalidation came since. When the
  // cache is full of live entries the profile is not kept (the next request reads again).
  void put(std::shared_ptr<const Profile> profile, ReadTicket read);
  void invalidate(UserId id);
  void invalidate_all();
  bool enabled() const { return ttl_.count() > 0; }
  std::size_t size() const;

 private:
  struct Entry {
    std::shared_ptr<const Profile> profile;
    TimePoint expires;
  };
  void prune(TimePoint now);

  std::chrono::milliseconds ttl_;
  const Clock& clock_;
  std::size_t capacity_;
  mutable std::mutex mutex_;
  mutable std::unordered_map<std::int64_t, Entry> entries_;
  std::uint64_t generation_ = 0;  // invalidations so far
};

}  // namespace mediagen::account
