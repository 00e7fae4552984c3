#pragma once
// Operator commands of the AI model catalogue: `admin ai-model set|remove`, `admin fx-rate set`,
// and its part of `admin seed-demo`. Every change is announced to the running servers.
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "mediagen/core/config.hpp"
#include "mediagen/db/db.hpp"

namespace mediagen::db {
class Db;
}

namespace mediagen::app {

struct AiModelArgs {
  std::string key;
  std::optional<std::string> name, family, kind, description, capabilities, pricing_mode;
  std::optional<std::int64_t> context_window, max_output_tokens;
  // Minor units of the platform currency: per 1M tokens, and per call.
  std::optional<std::int64_t> price_input, price_cached_input, price_output, price_reasoning, price_cache_write,
      per_call;
  bool clear_prices = false;
  std::optional<std::string> billing, byok, active;  // "on" | "off"
};

struct FxRateArgs {
  std::string currency;
  std::string rate;
  std::optional<std::string> symbol;
  std::optional<int> precision;
};

int admin_ai_model_set(const Config& config, const AiModelArgs& args);
int admin_ai_model_remove(const Config& config, const std::string& key);
int admin_fx_rate_set(const Config& config, const FxRateArgs& args);

// seed-demo's part, in its transaction: {"models": [...], "inserted": N, "display_currencies": [...]}.
nlohmann::ordered_json seed_ai_catalogue(db::Db& db, db::Tx& tx);
// After the commit: running servers drop their copy of the catalogue.
void announce_catalogue_change(const Config& config, const std::string& version);

}  // namespace mediagen::app
