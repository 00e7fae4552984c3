#pragma once
// The catalogue's rows: one load for the servers, the operator's changes and the demo seed.
// Every change moves the catalogue version in the same transaction (migrations/0015 triggers).
#include <optional>
#include <string>
#include <vector>

#include "mediagen/catalog/catalogue.hpp"
#include "mediagen/db/db.hpp"

namespace mediagen::db {
class Db;
}

namespace mediagen::catalog {

// Everything a request needs, in one read transaction.
Catalogue load_catalogue(db::Db& db);

// `admin ai-model set`: what is left out keeps its value (a new model takes the defaults, its
// name the key). `prices` set the classes given; `clear_prices` removes the others first.
struct ModelChange {
  std::string key;
  std::optional<std::string> name, family, kind, description, capabilities_json;
  std::optional<std::int64_t> context_window, max_output_tokens;
  std::optional<PricingMode> pricing_mode;
  std::optional<bool> byok, billing_available, active;
  Prices prices{};
  bool clear_prices = false;
};

// The model as stored afterwards (active or not).
Model set_model(db::Db& db, db::Tx& tx, const ModelChange& change);
// False when there was no such model.
bool remove_model(db::Db& db, db::Tx& tx, const std::string& key);

// `admin fx-rate set`: symbol and precision keep their value when left out (new: none and 2).
struct RateChange {
  std::string code;
  std::string rate;  // a positive decimal, as typed
  std::optional<std::string> symbol;
  std::optional<int> precision;
};
DisplayRate set_rate(db::Db& db, db::Tx& tx, const RateChange& change);

std::string catalogue_version(db::Db& db, db::Tx& tx);

// The demo catalogue, inserted where missing (an operator's later changes stay).
struct SeedReport {
  std::vector<std::string> models;  // every demo model key
  std::vector<std::string> currencies;
  int inserted_models = 0;
};
SeedReport seed_catalogue(db::Db& db, db::Tx& tx);

}  // namespace mediagen::catalog
