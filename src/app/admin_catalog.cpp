// `admin ai-model set|remove` and `admin fx-rate set`: JSON on stdout, one error line otherwise.
#include "admin_catalog.hpp"

#include <algorithm>
#include <cstdio>

#include "admin_output.hpp"
#include "mediagen/app/database.hpp"
#include "mediagen/cache/redis.hpp"
#include "mediagen/catalog/catalogue_cache.hpp"
#include "mediagen/catalog/catalogue_store.hpp"
#include "mediagen/db/transact.hpp"

namespace mediagen::app {
namespace {

using catalog::PriceClass;

std::optional<bool> on_off(const std::optional<std::string>& v) {
  if (!v) return std::nullopt;
  return *v == "on";
}

// "chat, tools" -> ["chat","tools"]
std::string capabilities_json(const std::string& list) {
  nlohmann::ordered_json out = nlohmann::ordered_json::array();
  std::string item;
  for (char c : list + ",") {
    if (c == ',') {
      if (!item.empty()) out.push_back(item);
      item.clear();
    } else if (c != ' ') {
      item += c;
    }
  }
  return to_json_text(out);
}

nlohmann::ordered_json model_json(const catalog::Model& m, const std::string& version) {
  nlohmann::ordered_json prices = nlohmann::ordered_json::object();
  for (auto cls : catalog::kPriceClasses) {
    if (auto minor = m.price(cls)) prices[std::string(catalog::to_string(cls))] = *minor;
  }
  auto opt = [](const std::optional<std::int64_t>& v) { return v ? nlohmann::ordered_json(*v) : nlohmann::ordered_json(); };
  return {{"key", m.key},
          {"name", m.name},
          {"family", m.family},
          {"kind", m.kind},
          {"description", m.description},
          {"context_window", opt(m.context_window)},
          {"max_output_tokens", opt(m.max_output_tokens)},
          {"capabilities", nlohmann::ordered_json::parse(m.capabilities_json)},
          {"pricing_mode", catalog::to_string(m.pricing_mode)},
          {"prices", prices},
          {"billing_available", m.billing_available},
          {"byok", m.byok},
          {"active", m.active},
          {"callable", m.callable()},
          {"version", version}};
}

bool is_alnum(char c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9'); }

// The key column's CHECK (migration 0015), said before PostgreSQL says it less clearly.
bool valid_key(const std::string& key) {
  if (key.empty() || key.size() > 100 || !is_alnum(key[0])) return false;
  return std::all_of(key.begin(), key.end(), [](char c) { return is_alnum(c) || c == '.' || c == '_' || c == ':' || c == '-'; });
}

// A positive decimal of at most 12 + 12 digits, e.g. 0.92 or 92.5.
bool valid_rate(const std::string& rate) {
  const auto dot = rate.find('.');
  const std::string whole = rate.substr(0, dot);
  const std::string frac = dot == std::string::npos ? "1" : rate.substr(dot + 1);
  auto digits = [](const std::string& s) {
    return !s.empty() && s.size() <= 12 && std::all_of(s.begin(), s.end(), [](char c) { return c >= '0' && c <= '9'; });
  };
  if (!digits(whole) || !digits(frac)) return false;
  return std::any_of(rate.begin(), rate.end(), [](char c) { return c >= '1' && c <= '9'; });
}

std::optional<std::string> check(const AiModelArgs& a) {
  if (!valid_key(a.key)) {
    return "--key must be 1 to 100 of letters, digits and . _ : - (starting with a letter or digit)";
  }
  if (a.pricing_mode && !catalog::parse_pricing_mode(*a.pricing_mode)) return "--pricing-mode must be per_token or per_call";
  if (a.name && a.name->empty()) return "--name cannot be empty";
  return std::nullopt;
}

}  // namespace

void announce_catalogue_change(const Config& config, const std::string& version) {
  try {
    cache::Redis redis({.url = config.redis_url});
    redis.command({"PUBLISH", catalog::invalidation_channel(config.redis_prefix), version});
  } catch (const std::exception& e) {
    std::fprintf(stderr, "warning: could not notify running servers (%s); they load the new prices within 5 minutes\n",
                 e.what());
  }
}

int admin_ai_model_set(const Config& config, const AiModelArgs& a) {
  if (auto problem = check(a)) return fail(*problem);
  catalog::ModelChange change{.key = a.key,
                              .name = a.name,
                              .family = a.family,
                              .kind = a.kind,
                              .description = a.description,
                              .context_window = a.context_window,
                              .max_output_tokens = a.max_output_tokens,
                              .byok = on_off(a.byok),
                              .billing_available = on_off(a.billing),
                              .active = on_off(a.active),
                              .clear_prices = a.clear_prices};
  if (a.capabilities) change.capabilities_json = capabilities_json(*a.capabilities);
  if (a.pricing_mode) change.pricing_mode = catalog::parse_pricing_mode(*a.pricing_mode);
  auto set_price = [&](PriceClass c, const std::optional<std::int64_t>& v) { change.prices[static_cast<std::size_t>(c)] = v; };
  set_price(PriceClass::input, a.price_input);
  set_price(PriceClass::cached_input, a.price_cached_input);
  set_price(PriceClass::output, a.price_output);
  set_price(PriceClass::reasoning, a.price_reasoning);
  set_price(PriceClass::cache_write, a.price_cache_write);
  set_price(PriceClass::request, a.per_call);
  // A per-call price alone makes a new model a per-call one.
  if (!change.pricing_mode && a.per_call && !a.price_input && !a.price_output) change.pricing_mode = catalog::PricingMode::per_call;
  Database database(config);
  db::Db& db = database.db();
  std::string version;
  const auto model = db::transact(db, [&](db::Tx& tx) {
    auto m = catalog::set_model(db, tx, change);
    version = catalog::catalogue_version(db, tx);
    return m;
  });
  announce_catalogue_change(config, version);
  print(model_json(model, version));
  return 0;
}

int admin_ai_model_remove(const Config& config, const std::string& key) {
  Database database(config);
  db::Db& db = database.db();
  std::string version;
  const bool removed = db::transact(db, [&](db::Tx& tx) {
    const bool r = catalog::remove_model(db, tx, key);
    version = catalog::catalogue_version(db, tx);
    return r;
  });
  if (!removed) return fail("no AI model with key " + key);
  announce_catalogue_change(config, version);
  print({{"key", key}, {"removed", true}, {"version", version}});
  return 0;
}

int admin_fx_rate_set(const Config& config, const FxRateArgs& a) {
  std::string code;
  for (char c : a.currency) code += (c >= 'a' && c <= 'z') ? static_cast<char>(c - 'a' + 'A') : c;
  if (code.size() != 3 || !std::all_of(code.begin(), code.end(), [](char c) { return c >= 'A' && c <= 'Z'; })) {
    return fail("--currency must be a three-letter code, e.g. EUR");
  }
  if (!valid_rate(a.rate)) {
    return fail("--rate must be a positive decimal number (display units per platform unit), e.g. 0.92");
  }
  if (a.symbol && (a.symbol->empty() || a.symbol->size() > 8)) return fail("--symbol must be 1 to 8 bytes");
  Database database(config);
  db::Db& db = database.db();
  std::string version;
  const auto rate = db::transact(db, [&](db::Tx& tx) {
    auto r = catalog::set_rate(db, tx, {code, a.rate, a.symbol, a.precision});
    version = catalog::catalogue_version(db, tx);
    return r;
  });
  announce_catalogue_change(config, version);
  print({{"code", rate.code},
         {"symbol", rate.symbol ? nlohmann::ordered_json(*rate.symbol) : nlohmann::ordered_json()},
         {"precision", rate.precision},
         {"rate", rate.rate},
         {"version", version}});
  return 0;
}

nlohmann::ordered_json seed_ai_catalogue(db::Db& db, db::Tx& tx) {
  const auto report = catalog::seed_catalogue(db, tx);
  return {{"models", report.models},
          {"inserted", report.inserted_models},
          {"display_currencies", report.currencies},
          {"version", catalog::catalogue_version(db, tx)}};
}

}  // namespace mediagen::app
