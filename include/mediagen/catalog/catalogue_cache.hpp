#pragma once
// The catalogue as every request of this instance sees it: loaded once, then kept in memory, so
// that a 304 (and a 200 as well) costs no database query. A change is announced on Redis by the
// command that made it (invalidation_channel): every instance drops its copy at once and the next
// request loads the new one. A copy older than max_age is loaded again too, in case an
// announcement was lost while Redis was unreachable; after the subscriber reconnects, App drops
// the copy as well.
//
// A load that started before an invalidation is not kept (the generation moved meanwhile): it
// may hold the rows from before the change.
#include <cstdint>
#include <memory>
#include <mutex>
#include <string>

#include "mediagen/catalog/catalogue.hpp"
#include "mediagen/core/clock.hpp"

namespace mediagen::catalog {

inline std::string invalidation_channel(const std::string& redis_prefix) { return redis_prefix + "catalog:invalidate"; }

class CatalogueCache {
 public:
  explicit CatalogueCache(const Clock& clock, Seconds max_age = Seconds{300}) : clock_(clock), max_age_(max_age) {}

  struct Lookup {
    std::shared_ptr<const Catalogue> catalogue;  // null: load one (then put() it)
    std::uint64_t generation = 0;
  };
  Lookup get() const;
  // Keeps `loaded` unless an invalidation came after the get() that returned `generation`.
  void put(std::shared_ptr<const Catalogue> loaded, std::uint64_t generation);
  // Any thread (the Redis subscriber's).
  void invalidate();

 private:
  const Clock& clock_;
  const Seconds max_age_;
  mutable std::mutex mutex_;
  std::shared_ptr<const Catalogue> current_;
  TimePoint loaded_at_{};
  std::uint64_t generation_ = 0;
};

}  // namespace mediagen::catalog
