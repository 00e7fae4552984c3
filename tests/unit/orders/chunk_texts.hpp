#pragma once
// Test helper: the texts of a chunk plan, in order.
#include <string>
#include <vector>

#include "mediagen/orders/text.hpp"

namespace mediagen::orders {

inline std::vector<std::string> texts_of(const ChunkPlan& plan) {
  std::vector<std::string> out;
  for (const ChunkText& c : plan.chunks) out.push_back(c.text);
  return out;
}

}  // namespace mediagen::orders
