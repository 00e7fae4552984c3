// The kept services (service_cache.hpp).
#include "mediagen/templates/service_cache.hpp"

namespace mediagen::templates {

std::shared_ptr<const ServiceCatalogue> ServiceCache::find(std::string_view key, std::int64_t version) const {
  const std::lock_guard lock(mutex_);
  const auto it = entries_.find(key);
  if (it == entries_.end() || it->second->version != version) return nullptr;
  return it->second;
}

void ServiceCache::keep(const ServiceCatalogue& service) {
  auto kept = std::make_shared<const ServiceCatalogue>(service);
  const std::lock_guard lock(mutex_);
  const auto it = entries_.find(service.service.key);
  if (it != entries_.end()) {
    // A slower read of an older catalogue never replaces a newer one.
    if (it->second->version <= service.version) it->second = std::move(kept);
    return;
  }
  if (entries_.size() >= capacity_) entries_.clear();
  entries_.emplace(service.service.key, std::move(kept));
}

std::size_t ServiceCache::size() const {
  const std::lock_guard lock(mutex_);
  return entries_.size();
}

}  // namespace mediagen::templates
