#include "mediagen/core/capacity_unit.hpp"

namespace mediagen {

std::string_view to_string(CapacityUnit unit) noexcept {
  switch (unit) {
    case CapacityUnit::chars: return "chars";
    case CapacityUnit::utf8_bytes: return "utf8_bytes";
    case CapacityUnit::seconds: return "seconds";
    case CapacityUnit::searches: return "searches";
  }
  return "chars";
}

std::optional<CapacityUnit> capacity_unit_from_string(std::string_view name) noexcept {
  if (name == "chars") return CapacityUnit::chars;
  if (name == "utf8_bytes") return CapacityUnit::utf8_bytes;
  if (name == "seconds") return CapacityUnit::seconds;
  if (name == "searches") return CapacityUnit::searches;
  return std::nullopt;
}

}  // namespace mediagen
