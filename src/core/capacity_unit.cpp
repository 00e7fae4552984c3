#include "mediagen/core/capacity_unit.hpp"

namespace mediagen {

std::string_view to_string(CapacityUnit unit) noexcept {
  return unit == CapacityUnit::utf8_bytes ? "utf8_bytes" : "chars";
}

std::optional<CapacityUnit> capacity_unit_from_string(std::string_view name) noexcept {
  if (name == "chars") return CapacityUnit::chars;
  if (name == "utf8_bytes") return CapacityUnit::utf8_bytes;
  return std::nullopt;
}

}  // namespace mediagen
