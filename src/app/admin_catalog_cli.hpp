#pragma once
// The command line of the AI catalogue's operator commands (main.cpp only: CLI11 is the binary's).
#include <CLI/CLI.hpp>
#include <optional>

#include "admin_catalog.hpp"

namespace mediagen::app {

struct CatalogCommands {
  AiModelArgs model;
  FxRateArgs rate;
  CLI::App *model_set = nullptr, *model_remove = nullptr, *rate_set = nullptr;
};

inline void add_catalog_commands(CLI::App& admin, CatalogCommands& c) {
  auto* model = admin.add_subcommand("ai-model", "The AI model price catalogue");
  model->require_subcommand(1);
  AiModelArgs& m = c.model;
  c.model_set = model->add_subcommand("set", "Create or change a model; options left out keep their value");
  c.model_set->add_option("--key", m.key, "The model name clients send")->required();
  c.model_set->add_option("--name", m.name);
  c.model_set->add_option("--family", m.family);
  c.model_set->add_option("--kind", m.kind, "chat, reasoning, embedding, image, ...");
  c.model_set->add_option("--description", m.description);
  c.model_set->add_option("--context-window", m.context_window)->check(CLI::PositiveNumber);
  c.model_set->add_option("--max-output-tokens", m.max_output_tokens)->check(CLI::PositiveNumber);
  c.model_set->add_option("--capabilities", m.capabilities, "Comma-separated, e.g. chat,tools,vision");
  c.model_set->add_option("--pricing-mode", m.pricing_mode)->check(CLI::IsMember({"per_token", "per_call"}));
  const char* per_mtok = "Minor units of the platform currency per 1M tokens";
  c.model_set->add_option("--price-input", m.price_input, per_mtok)->check(CLI::NonNegativeNumber);
  c.model_set->add_option("--price-cached-input", m.price_cached_input, per_mtok)->check(CLI::NonNegativeNumber);
  c.model_set->add_option("--price-output", m.price_output, per_mtok)->check(CLI::NonNegativeNumber);
  c.model_set->add_option("--price-reasoning", m.price_reasoning, per_mtok)->check(CLI::NonNegativeNumber);
  c.model_set->add_option("--price-cache-write", m.price_cache_write, per_mtok)->check(CLI::NonNegativeNumber);
  c.model_set->add_option("--per-call", m.per_call, "Minor units per call (image models)")->check(CLI::NonNegativeNumber);
  c.model_set->add_flag("--clear-prices", m.clear_prices, "Remove the prices not given in this command");
  c.model_set->add_option("--billing", m.billing, "on: callable for money; off: listed, not billable")
      ->check(CLI::IsMember({"on", "off"}));
  c.model_set->add_option("--byok", m.byok)->check(CLI::IsMember({"on", "off"}));
  c.model_set->add_option("--active", m.active, "off: out of the catalogue for now")->check(CLI::IsMember({"on", "off"}));
  c.model_remove = model->add_subcommand("remove", "Delete a model and its prices");
  c.model_remove->add_option("--key", m.key)->required();
  auto* fx = admin.add_subcommand("fx-rate", "Display-currency rates of the AI catalogue");
  fx->require_subcommand(1);
  c.rate_set = fx->add_subcommand("set", "Set how many units of a display currency one platform unit is worth");
  c.rate_set->add_option("--currency", c.rate.currency, "Three-letter code, e.g. EUR")->required();
  c.rate_set->add_option("--rate", c.rate.rate, "e.g. 0.92")->required();
  c.rate_set->add_option("--symbol", c.rate.symbol);
  c.rate_set->add_option("--precision", c.rate.precision, "Decimals shown (default 2)")->check(CLI::Range(0, 8));
}

// The exit code when one of these commands was given.
inline std::optional<int> run_catalog_command(const Config& config, const CatalogCommands& c) {
  if (c.model_set && c.model_set->parsed()) return admin_ai_model_set(config, c.model);
  if (c.model_remove && c.model_remove->parsed()) return admin_ai_model_remove(config, c.model.key);
  if (c.rate_set && c.rate_set->parsed()) return admin_fx_rate_set(config, c.rate);
  return std::nullopt;
}

}  // namespace mediagen::app
