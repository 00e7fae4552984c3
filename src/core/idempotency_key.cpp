#include "mediagen/core/idempotency_key.hpp"

namespace mediagen {

std::optional<std::string> valid_idempotency_key(std::string_view header) noexcept {
  if (header.empty() || header.size() > 255) return std::nullopt;
  for (const char c : header) {
    if (c < 0x21 || c > 0x7e) return std::nullopt;
  }
  return std::string(header);
}

}  // namespace mediagen
