#pragma once
#include "mediagen/core/api_error.hpp"

namespace mediagen::orders {

// Thrown inside an order transaction to roll it back and answer with `error`.
struct Refused {
  ApiError error;
};

}  // namespace mediagen::orders
