#include "mediagen/catalog/catalogue.hpp"

#include <algorithm>

namespace mediagen::catalog {

std::string_view to_string(PriceClass c) noexcept {
  switch (c) {
    case PriceClass::input: return "input";
    case PriceClass::cached_input: return "cached_input";
    case PriceClass::output: return "output";
    case PriceClass::reasoning: return "reasoning";
    case PriceClass::cache_write: return "cache_write";
    case PriceClass::request: return "request";
  }
  return "input";
}

std::optional<PriceClass> parse_price_class(std::string_view text) noexcept {
  for (auto c : kPriceClasses) {
    if (to_string(c) == text) return c;
  }
  return std::nullopt;
}

std::string_view to_string(PricingMode m) noexcept { return m == PricingMode::per_call ? "per_call" : "per_token"; }

std::optional<PricingMode> parse_pricing_mode(std::string_view text) noexcept {
  if (text == "per_token") return PricingMode::per_token;
  if (text == "per_call") return PricingMode::per_call;
  return std::nullopt;
}

bool Model::has_price() const {
  return std::any_of(prices.begin(), prices.end(), [](const auto& p) { return p.has_value(); });
}

const Model* Catalogue::find(std::string_view key) const {
  auto it = std::find_if(models.begin(), models.end(), [&](const Model& m) { return m.key == key; });
  return it == models.end() ? nullptr : &*it;
}

const DisplayRate* Catalogue::rate(std::string_view code) const {
  auto it = std::find_if(rates.begin(), rates.end(), [&](const DisplayRate& r) { return r.code == code; });
  return it == rates.end() ? nullptr : &*it;
}

}  // namespace mediagen::catalog
