#pragma once
// A currency asset as the reseller answers and events show it: {"code", "precision"}.
#include <nlohmann/json.hpp>

#include "mediagen/core/money.hpp"

namespace mediagen::reseller {

inline nlohmann::ordered_json asset_json(const CurrencyAsset& asset) {
  return {{"code", asset.code}, {"precision", asset.precision}};
}

}  // namespace mediagen::reseller
