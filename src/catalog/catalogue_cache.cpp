#include "mediagen/catalog/catalogue_cache.hpp"

namespace mediagen::catalog {

CatalogueCache::Lookup CatalogueCache::get() const {
  std::lock_guard lock(mutex_);
  if (current_ && clock_.now() - loaded_at_ >= max_age_) return {nullptr, generation_};
  return {current_, generation_};
}

void CatalogueCache::put(std::shared_ptr<const Catalogue> loaded, std::uint64_t generation) {
  std::lock_guard lock(mutex_);
  if (generation != generation_) return;
  current_ = std::move(loaded);
  loaded_at_ = clock_.now();
}

void CatalogueCache::invalidate() {
  std::lock_guard lock(mutex_);
  ++generation_;
  current_.reset();
}

}  // namespace mediagen::catalog
