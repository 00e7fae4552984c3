#include "mediagen/core/money.hpp"

#include <cmath>

namespace mediagen {

double to_whole_units(MinorUnits amount, int precision) {
  return static_cast<double>(amount.value) / std::pow(10.0, precision);
}

}  // namespace mediagen
