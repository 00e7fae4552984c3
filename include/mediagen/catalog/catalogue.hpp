#pragma once
// The AI model price catalogue (spec 2.8, 4.7) as values: what one load of the catalogue rows
// holds, read once and then served from memory by every request until a price changes.
#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "mediagen/core/clock.hpp"
#include "mediagen/core/ids.hpp"

namespace mediagen::catalog {

// The token classes are priced per 1M tokens; `request` per call (image models).
enum class PriceClass { input, cached_input, output, reasoning, cache_write, request };
inline constexpr std::array<PriceClass, 6> kPriceClasses{PriceClass::input,     PriceClass::cached_input,
                                                         PriceClass::output,    PriceClass::reasoning,
                                                         PriceClass::cache_write, PriceClass::request};
std::string_view to_string(PriceClass c) noexcept;
std::optional<PriceClass> parse_price_class(std::string_view text) noexcept;

enum class PricingMode { per_token, per_call };
std::string_view to_string(PricingMode m) noexcept;
std::optional<PricingMode> parse_pricing_mode(std::string_view text) noexcept;

// Minor units of the platform currency, by PriceClass; nullopt: that class has no price.
using Prices = std::array<std::optional<std::int64_t>, kPriceClasses.size()>;

struct Model {
  std::string key;  // the `model` of AI requests
  std::string name, family, kind, description;
  std::optional<std::int64_t> context_window, max_output_tokens;
  std::string capabilities_json = "[]";  // a JSON array of strings, as stored
  PricingMode pricing_mode = PricingMode::per_token;
  bool byok = false;
  bool billing_available = true;
  bool active = true;
  Prices prices{};

  bool has_price() const;
  // Can be called for money now: listed, billable and priced (otherwise GET /ai/models/{key} 404).
  bool callable() const { return active && billing_available && has_price(); }
  std::optional<std::int64_t> price(PriceClass c) const { return prices[static_cast<std::size_t>(c)]; }
};

// The platform currency's row of currency_assets, every field (spec 2.8 `asset`).
struct PlatformAsset {
  AssetId id;
  std::string code, kind, name;
  int precision = 2;
  bool is_active = true, is_default = true;
  std::int64_t default_balance = 0;
  std::optional<TimePoint> deleted_at;
  TimePoint created_at, updated_at;
};

// One display currency: how many of its units one platform unit is worth.
struct DisplayRate {
  std::string code;  // three uppercase ASCII letters
  std::optional<std::string> symbol;
  int precision = 2;
  double rate = 1.0;
};

struct Catalogue {
  std::string version;  // changes with every committed change of models, prices or rates
  PlatformAsset asset;
  std::vector<Model> models;  // the active ones, in display order
  std::vector<DisplayRate> rates;

  const Model* find(std::string_view key) const;
  const DisplayRate* rate(std::string_view code) const;
};

}  // namespace mediagen::catalog
