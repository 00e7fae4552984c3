// Operator commands: JSON on stdout, a one-line error on stderr and a non-zero exit otherwise.
#include <algorithm>
#include <cstdio>
#include <thread>
#include "mediagen/core/json_text.hpp"
#include <nlohmann/json.hpp>

#include "admin_catalog.hpp"
#include "admin_output.hpp"
#include "admin_upstream.hpp"
#include "commands.hpp"
#include "invalidation.hpp"
#include "settings.hpp"
#include "mediagen/app/database.hpp"
#include "mediagen/account/users.hpp"
#include "mediagen/auth/key_json.hpp"
#include "mediagen/auth/keys.hpp"
#include "mediagen/billing/ledger.hpp"
#include "mediagen/billing/subscriptions.hpp"
#include "mediagen/billing/wallet.hpp"
#include "mediagen/cache/redis.hpp"
#include "mediagen/core/log.hpp"
#include "mediagen/core/time_zone.hpp"
#include "mediagen/db/transact.hpp"
#include "mediagen/templates/seed.hpp"
#include "mediagen/voices/voice_search.hpp"
#include "mediagen/voices/voices.hpp"

namespace mediagen::app {

namespace {

nlohmann::ordered_json user_json(const account::Profile& p) {
  return {{"id", p.id.value},
          {"email", p.email},
          {"name", p.name},
          {"locale", locale_code(p.locale)},
          {"blocked", p.blocked},
          {"balance_minor", p.balance.value},
          {"currency", p.asset.code}};
}

// Voice search: every catalogue pair without a description gets one, on every core.
nlohmann::ordered_json describe_voices(db::Db& db, const std::optional<std::string>& service = std::nullopt) {
  const int cores = static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
  const auto r = voices::seed_voice_features(db, cores, service);
  return {{"pairs", r.pairs}, {"computed", r.computed}, {"not_described", r.failed}, {"seconds", r.seconds}};
}

}  // namespace

int admin_seed_demo(const Config& config, bool voice_features) {
  Database database(config);
  db::Db& db = database.db();
  // The voice catalogues are built from the synthesiser's voices installed on this machine.
  std::vector<voices::VoiceSeed> catalogue;
  try {
    catalogue = voices::installed_catalogue();
  } catch (const std::runtime_error& e) {
    return fail(std::string("cannot list the speech voices: ") + e.what());
  }
  if (catalogue.empty()) return fail("the speech synthesiser lists no voices; is espeak-ng-data installed?");
  // The voices of a service an upstream serves come from the upstream, after the commit.
  catalogue = without_upstream_services(db, std::move(catalogue));

  nlohmann::ordered_json out;
  db::transact(db, [&](db::Tx& tx) {
    nlohmann::ordered_json assets = nlohmann::ordered_json::array();
    for (const auto& asset : billing::seed_currencies(db, tx)) {
      assets.push_back({{"code", asset.code}, {"precision", asset.precision}});
    }
    const auto services = templates::seed_catalogue(db, tx);
    // Every voice service behind an upstream: nothing embedded to seed (the tags came with the
    // first seed, which ran before any service could be given an upstream).
    const auto seeded_voices = catalogue.empty() ? voices::VoiceSeedReport{} : voices::seed_voices(db, tx, catalogue);
    nlohmann::ordered_json service_list = nlohmann::ordered_json::array();
    for (const auto& s : services.services) {
      service_list.push_back({{"key", s.key}, {"kind", s.kind}, {"models", s.models}});
    }
    nlohmann::ordered_json voice_counts = nlohmann::ordered_json::object();
    for (const auto& [service, count] : seeded_voices.voices) voice_counts[service] = count;
    out["currency_assets"] = std::move(assets);
    nlohmann::ordered_json plans = nlohmann::ordered_json::array();
    for (const auto& p : billing::seed_plans(db, tx)) {
      plans.push_back({{"code", p.code},
                       {"name", p.name},
                       {"tokens_per_period", p.tokens_per_period},
                       {"period_days", p.period_days},
                       {"concurrency_slots", p.concurrency_slots ? nlohmann::ordered_json(*p.concurrency_slots)
                                                                 : nlohmann::ordered_json(nullptr)}});
    }
    out["plans"] = std::move(plans);
    out["services"] = std::move(service_list);
    out["voices"] = std::move(voice_counts);
    out["voices_deactivated"] = seeded_voices.deactivated;
    out["voice_tags"] = seeded_voices.tags;
    out["languages"] = services.languages;
    out["ai_catalogue"] = seed_ai_catalogue(db, tx);
  });
  announce_catalogue_change(config, out["ai_catalogue"]["version"].get<std::string>());
  out["upstream_voices"] = sync_all_upstream_voices(config, db);
  // After the commit: the catalogue's new voices are what gets described.
  if (voice_features) out["voice_features"] = describe_voices(db);
  print(out);
  return 0;
}

int admin_voice_features(const Config& config, const std::string& service) {
  Database database(config);
  print(describe_voices(database.db(), service.empty() ? std::nullopt : std::optional<std::string>(service)));
  return 0;
}

int admin_user_create(const Config& config, const std::string& email, const std::string& name,
                      const std::string& locale, std::int64_t balance) {
  if (locale != "en" && locale != "ru") return fail("--locale must be en or ru");
  Database database(config);
  db::Db& db = database.db();
  try {
    auto p = account::create_user(db, {email, name, parse_locale(locale), MinorUnits{balance}});
    print(user_json(p));
  } catch (const std::invalid_argument& e) {
    return fail(e.what());
  }
  return 0;
}

int admin_user_balance(const Config& config, std::int64_t user, std::int64_t add) {
  Database database(config);
  db::Db& db = database.db();
  try {
    auto p = account::adjust_balance(db, UserId{user}, MinorUnits{add}, "operator adjustment");
    if (!p) return fail("no user with id " + std::to_string(user));
    print({{"id", p->id.value}, {"balance_minor", p->balance.value}});
  } catch (const billing::InsufficientBalance&) {
    return fail("the balance cannot go below zero");
  }
  return 0;
}

int admin_user_block(const Config& config, std::int64_t user, bool blocked) {
  Database database(config);
  db::Db& db = database.db();
  auto p = account::set_blocked(db, UserId{user}, blocked);
  if (!p) return fail("no user with id " + std::to_string(user));
  publish_invalidation(config, UserId{user});
  print({{"id", p->id.value}, {"blocked", p->blocked}});
  return 0;
}

int admin_user_wallet(const Config& config, std::int64_t user, bool on) {
  Database database(config);
  auto enabled = billing::set_wallet_enabled(database.db(), UserId{user}, on);
  if (!enabled) return fail("no user with id " + std::to_string(user));
  print({{"id", user}, {"wallet_enabled", *enabled}});
  return 0;
}

int admin_key_create(const Config& config, const KeyCreateArgs& a) {
  auth::NewKey request;
  request.user = UserId{a.user};
  request.name = a.name;
  if (!a.preset.empty()) {
    auto set = auth::preset(a.preset);
    if (!set) return fail("unknown preset '" + a.preset + "' (read_only, automation, full)");
    request.scopes.merge(*set);
  }
  if (!a.scopes.empty()) {
    std::vector<std::string> names;
    std::string item;
    for (char c : a.scopes + ",") {
      if (c == ',') {
        if (!item.empty()) names.push_back(item);
        item.clear();
      } else if (c != ' ') {
        item += c;
      }
    }
    auto set = auth::ScopeSet::from_names(names);
    if (!set) return fail("unknown scope in --scopes '" + a.scopes + "'");
    request.scopes.merge(*set);
  }
  if (!a.expires_at.empty()) {
    request.expires_at = parse_iso8601(a.expires_at);
    if (!request.expires_at) return fail("--expires-at must be ISO 8601, e.g. 2027-01-31T00:00:00Z");
  }
  auto positive = [&](const std::optional<std::int64_t>& v, const char* flag) {
    if (v && *v <= 0) throw std::invalid_argument(std::string(flag) + " must be positive");
    return v;
  };
  try {
    auto& l = request.limits;
    l.requests.per_minute = positive(a.rate_per_minute, "--rate-per-minute");
    l.requests.per_hour = positive(a.rate_per_hour, "--rate-per-hour");
    l.requests.per_day = positive(a.rate_per_day, "--rate-per-day");
    l.tokens.per_minute = positive(a.tokens_per_minute, "--tokens-per-minute");
    l.tokens.per_hour = positive(a.tokens_per_hour, "--tokens-per-hour");
    l.tokens.per_day = positive(a.tokens_per_day, "--tokens-per-day");
    l.tokens.per_month = positive(a.tokens_per_month, "--tokens-per-month");
    if (a.tokens_quota && *a.tokens_quota < 0) return fail("--tokens-quota cannot be negative");
    l.tokens.quota = a.tokens_quota;
    if (a.ai_monthly_limit && *a.ai_monthly_limit < 0) return fail("--ai-monthly-limit cannot be negative");
    l.ai_monthly_limit_minor = a.ai_monthly_limit;
    Database database(config);
    db::Db& db = database.db();
    auto created = auth::create_key(db, request);
    auto out = nlohmann::ordered_json::parse(auth::key_json(created.key, TimeZone::utc(), 0));
    out["key"] = created.plaintext;  // shown once; only its hash is stored
    print(out);
  } catch (const std::invalid_argument& e) {
    return fail(e.what());
  }
  return 0;
}

int admin_key_disable(const Config& config, std::int64_t id) {
  Database database(config);
  db::Db& db = database.db();
  auto key = auth::disable_key(db, ApiKeyId{id});
  if (!key) return fail("no key with id " + std::to_string(id));
  publish_invalidation(config, key->key_hash);
  print({{"id", key->key_id.value}, {"disabled", true}});
  return 0;
}

}  // namespace mediagen::app
