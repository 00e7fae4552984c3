// The kept services and voices (service_cache.hpp).
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

std::shared_ptr<const CatalogueVoice> ServiceCache::find_voice(std::int64_t service_id, std::string_view voice_id,
                                                               std::int64_t version) const {
  const std::lock_guard lock(mutex_);
  const auto it = voices_.find(VoiceKey{service_id, std::string(voice_id)});
  if (it == voices_.end() || it->second.version != version) return nullptr;
  return it->second.voice;
}

void ServiceCache::keep_voice(std::int64_t service_id, const CatalogueVoice& voice, std::int64_t version) {
  KeptVoice kept{version, std::make_shared<const CatalogueVoice>(voice)};
  const std::lock_guard lock(mutex_);
  VoiceKey key{service_id, voice.voice_id};
  const auto it = voices_.find(key);
  if (it != voices_.end()) {
    if (it->second.version <= version) it->second = std::move(kept);
    return;
  }
  if (voices_.size() >= voice_capacity_) voices_.clear();
  voices_.emplace(std::move(key), std::move(kept));
}

std::size_t ServiceCache::size() const {
  const std::lock_guard lock(mutex_);
  return entries_.size();
}

std::size_t ServiceCache::voices() const {
  const std::lock_guard lock(mutex_);
  return voices_.size();
}

}  // namespace mediagen::templates
