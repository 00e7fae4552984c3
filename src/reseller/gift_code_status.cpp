#include "mediagen/reseller/gift_codes.hpp"

namespace mediagen::reseller {

// The status names live here, in the store and in the migration only.
std::string_view to_string(GiftCodeStatus status) {
  switch (status) {
    case GiftCodeStatus::active: return "active";
    case GiftCodeStatus::redeemed: return "redeemed";
    case GiftCodeStatus::cancelled: return "cancelled";
  }
  return "active";
}

std::optional<GiftCodeStatus> parse_gift_code_status(std::string_view text) {
  for (auto s : {GiftCodeStatus::active, GiftCodeStatus::redeemed, GiftCodeStatus::cancelled}) {
    if (to_string(s) == text) return s;
  }
  return std::nullopt;
}

}  // namespace mediagen::reseller
