#pragma once
#include <cstdint>
#include <string>

#include "mediagen/core/ids.hpp"

namespace mediagen {

// Money in the smallest unit of its asset; the real value is value / 10^precision.
struct MinorUnits {
  std::int64_t value = 0;
  friend auto operator<=>(MinorUnits, MinorUnits) = default;
};

struct CurrencyAsset {
  AssetId id;
  std::string code;
  int precision = 2;
};

// Whole units as a JSON number, e.g. 150000 minor at precision 2 -> 1500.
double to_whole_units(MinorUnits amount, int precision);

}  // namespace mediagen
