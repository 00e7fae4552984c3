#pragma once
// Services as this instance last read them (load_service), each kept with the catalogue version
// it was read at (migration 0020: a counter that every change to services, their models, modes
// and voice languages moves). A caller that has read the current version in a statement it runs
// anyway (the order's context statement) uses a kept service only when the versions are equal, so
// an order made from a template reads the catalogue from memory and nothing stale is ever used:
// a change on any instance, by the CLI or by plain SQL moves the counter.
#include <cstddef>
#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>

#include "mediagen/templates/catalogue.hpp"

namespace mediagen::templates {

class ServiceCache {
 public:
  explicit ServiceCache(std::size_t capacity = 256) : capacity_(capacity) {}

  // The service as kept at `version`; null when it is not kept at that version.
  std::shared_ptr<const ServiceCatalogue> find(std::string_view key, std::int64_t version) const;
  // Keeps `service` under its own version (ServiceCatalogue::version), unless a newer read of
  // it is kept already. Past `capacity` services, everything kept is dropped first.
  void keep(const ServiceCatalogue& service);
  std::size_t size() const;

 private:
  std::size_t capacity_;
  mutable std::mutex mutex_;
  std::map<std::string, std::shared_ptr<const ServiceCatalogue>, std::less<>> entries_;
};

}  // namespace mediagen::templates
