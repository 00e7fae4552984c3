#pragma once
// Services and their catalogue voices as this instance last read them (load_service, find_voice),
// each kept with the catalogue version it was read at (migration 0020: a counter that every
// change to services, their models, modes and voices moves). A caller that has read the current
// version in a statement it runs anyway (the order's context statement) uses a kept entry only
// when the versions are equal, so an order made from a template reads the catalogue from memory
// and nothing stale is ever used: a change on any instance, by the CLI or by plain SQL moves the
// counter. Voice clones are never kept: they are one account's and change on their own.
#include <cstddef>
#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <string_view>
#include <utility>

#include "mediagen/templates/catalogue.hpp"

namespace mediagen::templates {

class ServiceCache {
 public:
  explicit ServiceCache(std::size_t capacity = 256, std::size_t voice_capacity = 20000)
      : capacity_(capacity), voice_capacity_(voice_capacity) {}

  // The service as kept at `version`; null when it is not kept at that version.
  std::shared_ptr<const ServiceCatalogue> find(std::string_view key, std::int64_t version) const;
  // Keeps `service` under its own version (ServiceCatalogue::version), unless a newer read of
  // it is kept already. Past `capacity` services, everything kept is dropped first.
  void keep(const ServiceCatalogue& service);

  // The same for an active catalogue voice of a service, by its provider-format id.
  std::shared_ptr<const CatalogueVoice> find_voice(std::int64_t service_id, std::string_view voice_id,
                                                   std::int64_t version) const;
  void keep_voice(std::int64_t service_id, const CatalogueVoice& voice, std::int64_t version);

  std::size_t size() const;
  std::size_t voices() const;

 private:
  struct KeptVoice {
    std::int64_t version = 0;
    std::shared_ptr<const CatalogueVoice> voice;
  };
  using VoiceKey = std::pair<std::int64_t, std::string>;

  std::size_t capacity_;
  std::size_t voice_capacity_;
  mutable std::mutex mutex_;
  std::map<std::string, std::shared_ptr<const ServiceCatalogue>, std::less<>> entries_;
  std::map<VoiceKey, KeptVoice> voices_;
};

}  // namespace mediagen::templates
