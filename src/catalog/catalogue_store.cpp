// SQL of the AI model catalogue (migration 0015).
#include "mediagen/catalog/catalogue_store.hpp"

#include <charconv>
#include <stdexcept>

#include "mediagen/db/fields.hpp"
#include "mediagen/db/pg.hpp"

namespace mediagen::catalog {
namespace {

#define MG_MICROS(col) "(extract(epoch from " col ") * 1000000)::bigint"

const db::Statement kVersion{"catalog_version",
                             "SELECT counter::text || '-' || salt FROM ai_catalogue_version WHERE id"};
const db::Statement kAsset{
    "catalog_asset",
    "SELECT id, code, kind, precision, name, is_active, is_default, default_balance, " MG_MICROS("deleted_at") ", "
    MG_MICROS("created_at") ", " MG_MICROS("updated_at") " FROM currency_assets WHERE is_default"};
#define MG_MODEL_COLUMNS                                                                                       \
  "m.key, m.name, m.family, m.kind, m.description, m.context_window, m.max_output_tokens, m.capabilities::text," \
  " m.pricing_mode, m.byok, m.billing_available, m.active,"                                                    \
  " (SELECT string_agg(p.price_class || '=' || p.minor, ',') FROM ai_model_prices p WHERE p.model_key = m.key)"
const db::Statement kModels{"catalog_models",
                            "SELECT " MG_MODEL_COLUMNS " FROM ai_models m WHERE m.active"
                            " ORDER BY m.family, m.kind, m.key"};
const db::Statement kModel{"catalog_model", "SELECT " MG_MODEL_COLUMNS " FROM ai_models m WHERE m.key = $1"};
const db::Statement kRates{"catalog_rates",
                           "SELECT code, symbol, precision, rate::text FROM display_currencies ORDER BY code"};

// NULL keeps the stored value; a new row takes the column defaults (name: the key).
const db::Statement kUpsertModel{
    "catalog_upsert_model",
    "INSERT INTO ai_models AS m (key, name, family, kind, description, context_window, max_output_tokens,"
    " capabilities, pricing_mode, byok, billing_available, active)"
    " VALUES ($1, COALESCE($2, $1), COALESCE($3, ''), COALESCE($4, 'chat'), COALESCE($5, ''), $6, $7,"
    " COALESCE($8::jsonb, '[]'), COALESCE($9, 'per_token'), COALESCE($10, false), COALESCE($11, true),"
    " COALESCE($12, true))"
    " ON CONFLICT (key) DO UPDATE SET name = COALESCE($2, m.name), family = COALESCE($3, m.family),"
    " kind = COALESCE($4, m.kind), description = COALESCE($5, m.description),"
    " context_window = COALESCE($6, m.context_window), max_output_tokens = COALESCE($7, m.max_output_tokens),"
    " capabilities = COALESCE($8::jsonb, m.capabilities), pricing_mode = COALESCE($9, m.pricing_mode),"
    " byok = COALESCE($10, m.byok), billing_available = COALESCE($11, m.billing_available),"
    " active = COALESCE($12, m.active),"
    " updated_at = CASE WHEN (m.name, m.family, m.kind, m.description, m.context_window, m.max_output_tokens,"
    "  m.capabilities, m.pricing_mode, m.byok, m.billing_available, m.active) IS DISTINCT FROM"
    "  (COALESCE($2, m.name), COALESCE($3, m.family), COALESCE($4, m.kind), COALESCE($5, m.description),"
    "   COALESCE($6, m.context_window), COALESCE($7, m.max_output_tokens), COALESCE($8::jsonb, m.capabilities),"
    "   COALESCE($9, m.pricing_mode), COALESCE($10, m.byok), COALESCE($11, m.billing_available),"
    "   COALESCE($12, m.active)) THEN now() ELSE m.updated_at END"};
const db::Statement kClearPrices{"catalog_clear_prices", "DELETE FROM ai_model_prices WHERE model_key = $1"};
const db::Statement kSetPrice{
    "catalog_set_price",
    "INSERT INTO ai_model_prices (model_key, price_class, minor) VALUES ($1, $2, $3)"
    " ON CONFLICT (model_key, price_class) DO UPDATE SET minor = EXCLUDED.minor"};
const db::Statement kRemoveModel{"catalog_remove_model", "DELETE FROM ai_models WHERE key = $1"};
const db::Statement kUpsertRate{
    "catalog_upsert_rate",
    "INSERT INTO display_currencies AS d (code, symbol, precision, rate) VALUES ($1, $2, COALESCE($3, 2), $4::numeric)"
    " ON CONFLICT (code) DO UPDATE SET symbol = COALESCE($2, d.symbol), precision = COALESCE($3, d.precision),"
    " rate = $4::numeric, updated_at = now()"
    " RETURNING code, symbol, precision, rate::text"};
const db::Statement kSeedRate{
    "catalog_seed_rate",
    "INSERT INTO display_currencies (code, symbol, precision, rate) VALUES ($1, $2, $3, $4::numeric)"
    " ON CONFLICT (code) DO NOTHING"};
const db::Statement kSeedModel{
    "catalog_seed_model",
    "INSERT INTO ai_models (key, name, family, kind, description, context_window, max_output_tokens, capabilities,"
    " pricing_mode, byok, billing_available) VALUES ($1, $2, $3, $4, $5, $6, $7, $8::jsonb, $9, $10, $11)"
    " ON CONFLICT (key) DO NOTHING RETURNING key"};

double parse_rate(const std::string& text) {
  double v = 0;
  auto [p, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
  if (ec != std::errc{} || v <= 0) throw std::runtime_error("display_currencies.rate is not a positive number");
  return v;
}

// "input=250,output=1000" as aggregated by MG_MODEL_COLUMNS.
Prices parse_prices(const pqxx::field& f) {
  Prices prices{};
  if (f.is_null()) return prices;
  const std::string text = f.as<std::string>();
  std::size_t start = 0;
  while (start < text.size()) {
    auto end = text.find(',', start);
    if (end == std::string::npos) end = text.size();
    const std::string_view item(text.data() + start, end - start);
    const auto eq = item.find('=');
    auto cls = parse_price_class(item.substr(0, eq));
    std::int64_t minor = 0;
    if (eq != std::string_view::npos && cls) {
      std::from_chars(item.data() + eq + 1, item.data() + item.size(), minor);
      prices[static_cast<std::size_t>(*cls)] = minor;
    }
    start = end + 1;
  }
  return prices;
}

Model model_from(const pqxx::row& r) {
  Model m;
  m.key = r[0].as<std::string>();
  m.name = r[1].as<std::string>();
  m.family = r[2].as<std::string>();
  m.kind = r[3].as<std::string>();
  m.description = r[4].as<std::string>();
  m.context_window = db::optional_of<std::int64_t>(r[5]);
  m.max_output_tokens = db::optional_of<std::int64_t>(r[6]);
  m.capabilities_json = r[7].as<std::string>();
  m.pricing_mode = parse_pricing_mode(r[8].as<std::string>()).value_or(PricingMode::per_token);
  m.byok = r[9].as<bool>();
  m.billing_available = r[10].as<bool>();
  m.active = r[11].as<bool>();
  m.prices = parse_prices(r[12]);
  return m;
}

DisplayRate rate_from(const pqxx::row& r) {
  return {r[0].as<std::string>(), db::optional_of<std::string>(r[1]), r[2].as<int>(), parse_rate(r[3].as<std::string>())};
}

std::optional<std::string> opt_text(const std::optional<std::int64_t>& v) {
  if (!v) return std::nullopt;
  return std::to_string(*v);
}
std::optional<std::string> opt_text(const std::optional<bool>& v) {
  if (!v) return std::nullopt;
  return std::string(*v ? "true" : "false");
}

}  // namespace

Catalogue load_catalogue(db::Db& db) {
  return db::transact(db, [&](db::Tx& tx) {
    Catalogue c;
    c.version = catalogue_version(db, tx);
    const auto asset = db.exec(tx, kAsset);
    if (asset.empty()) throw std::runtime_error("no platform currency in currency_assets");
    const auto& a = asset[0];
    c.asset = {AssetId{a[0].as<std::int64_t>()}, a[1].as<std::string>(), a[2].as<std::string>(), a[4].as<std::string>(),
               a[3].as<int>(), a[5].as<bool>(), a[6].as<bool>(), a[7].as<std::int64_t>(),
               a[8].is_null() ? std::nullopt : std::optional<TimePoint>(db::time_from_micros(a[8])),
               db::time_from_micros(a[9]), db::time_from_micros(a[10])};
    for (const auto& r : db.exec(tx, kModels)) c.models.push_back(model_from(r));
    for (const auto& r : db.exec(tx, kRates)) c.rates.push_back(rate_from(r));
    return c;
  });
}

std::string catalogue_version(db::Db& db, db::Tx& tx) { return db.exec(tx, kVersion)[0][0].as<std::string>(); }

Model set_model(db::Db& db, db::Tx& tx, const ModelChange& c) {
  std::optional<std::string> mode;
  if (c.pricing_mode) mode = std::string(to_string(*c.pricing_mode));
  db.exec(tx, kUpsertModel, c.key, c.name, c.family, c.kind, c.description, opt_text(c.context_window),
          opt_text(c.max_output_tokens), c.capabilities_json, mode, opt_text(c.byok), opt_text(c.billing_available),
          opt_text(c.active));
  if (c.clear_prices) db.exec(tx, kClearPrices, c.key);
  for (auto cls : kPriceClasses) {
    if (auto minor = c.prices[static_cast<std::size_t>(cls)]) db.exec(tx, kSetPrice, c.key, std::string(to_string(cls)), *minor);
  }
  return model_from(db.exec(tx, kModel, c.key)[0]);
}

bool remove_model(db::Db& db, db::Tx& tx, const std::string& key) {
  return db.exec(tx, kRemoveModel, key).affected_rows() > 0;
}

DisplayRate set_rate(db::Db& db, db::Tx& tx, const RateChange& c) {
  std::optional<std::string> precision;
  if (c.precision) precision = std::to_string(*c.precision);
  return rate_from(db.exec(tx, kUpsertRate, c.code, c.symbol, precision, c.rate)[0]);
}

namespace {

struct SeedModel {
  const char* key;
  const char* name;
  const char* family;
  const char* kind;
  const char* description;
  std::optional<std::int64_t> context_window, max_output_tokens;
  const char* capabilities;
  PricingMode mode;
  bool byok, billing;
  std::vector<std::pair<PriceClass, std::int64_t>> prices;  // minor units of the platform currency
};

using enum PriceClass;
// Cents per 1M tokens (per call for images), in the range such models cost today.
const std::vector<SeedModel>& demo_models() {
  static const std::vector<SeedModel> models{
      {"aurora-large", "Aurora Large", "aurora", "chat", "The most capable Aurora model for complex tasks.", 200000,
       32000, R"(["chat","tools","vision","json_mode"])", PricingMode::per_token, false, true,
       {{input, 300}, {cached_input, 30}, {output, 1500}, {cache_write, 375}}},
      {"aurora-mini", "Aurora Mini", "aurora", "chat", "Fast and inexpensive; good for high volume.", 200000, 16000,
       R"(["chat","tools","json_mode"])", PricingMode::per_token, false, true,
       {{input, 25}, {cached_input, 3}, {output, 125}, {cache_write, 31}}},
      {"aurora-reasoner", "Aurora Reasoner", "aurora", "reasoning", "Thinks before answering; bills reasoning tokens.",
       200000, 100000, R"(["chat","tools","reasoning"])", PricingMode::per_token, false, true,
       {{input, 200}, {cached_input, 50}, {output, 800}, {reasoning, 800}}},
      {"nimbus-pro", "Nimbus Pro", "nimbus", "chat", "Long-context model for documents and code.", 1000000, 65536,
       R"(["chat","tools","vision","long_context"])", PricingMode::per_token, false, true,
       {{input, 125}, {cached_input, 31}, {output, 1000}}},
      {"nimbus-flash", "Nimbus Flash", "nimbus", "chat", "Low latency for interactive use.", 1000000, 8192,
       R"(["chat","vision"])", PricingMode::per_token, false, true, {{input, 10}, {cached_input, 3}, {output, 40}}},
      {"nimbus-legacy", "Nimbus Legacy", "nimbus", "chat", "Kept for existing integrations; no longer billed.", 32000,
       4096, R"(["chat"])", PricingMode::per_token, false, false, {{input, 50}, {output, 150}}},
      {"lumen-8b", "Lumen 8B", "lumen", "chat", "Small open-weights model.", 128000, 8192, R"(["chat"])",
       PricingMode::per_token, false, true, {{input, 5}, {output, 8}}},
      {"lumen-70b", "Lumen 70B", "lumen", "chat", "Large open-weights model.", 128000, 8192, R"(["chat","tools"])",
       PricingMode::per_token, false, true, {{input, 60}, {output, 80}}},
      {"lumen-next", "Lumen Next (preview)", "lumen", "chat", "Preview; not priced yet.", 128000, 8192,
       R"(["chat","tools"])", PricingMode::per_token, true, true, {}},
      {"echo-embed-small", "Echo Embed Small", "echo", "embedding", "Text embeddings, 1536 dimensions.", 8192,
       std::nullopt, R"(["embeddings"])", PricingMode::per_token, false, true, {{input, 2}}},
      {"echo-embed-large", "Echo Embed Large", "echo", "embedding", "Text embeddings, 3072 dimensions.", 8192,
       std::nullopt, R"(["embeddings"])", PricingMode::per_token, false, true, {{input, 13}}},
      {"prism-image", "Prism Image", "prism", "image", "Image generation, 1024x1024, per image.", std::nullopt,
       std::nullopt, R"(["image_generation"])", PricingMode::per_call, false, true, {{request, 4}}},
  };
  return models;
}

}  // namespace

SeedReport seed_catalogue(db::Db& db, db::Tx& tx) {
  SeedReport report;
  for (const auto& m : demo_models()) {
    report.models.emplace_back(m.key);
    const auto inserted = db.exec(tx, kSeedModel, std::string(m.key), std::string(m.name), std::string(m.family),
                                  std::string(m.kind), std::string(m.description), opt_text(m.context_window),
                                  opt_text(m.max_output_tokens), std::string(m.capabilities),
                                  std::string(to_string(m.mode)), m.byok, m.billing);
    if (inserted.empty()) continue;  // the operator's version stays
    ++report.inserted_models;
    for (const auto& [cls, minor] : m.prices) db.exec(tx, kSetPrice, std::string(m.key), std::string(to_string(cls)), minor);
  }
  struct SeedRate {
    const char* code;
    const char* symbol;
    int precision;
    const char* rate;
  };
  for (const SeedRate& r : {SeedRate{"USD", "$", 2, "1"}, SeedRate{"EUR", "€", 2, "0.92"}, SeedRate{"RUB", "₽", 2, "92.5"}}) {
    db.exec(tx, kSeedRate, std::string(r.code), std::string(r.symbol), r.precision, std::string(r.rate));
    report.currencies.emplace_back(r.code);
  }
  return report;
}

}  // namespace mediagen::catalog
