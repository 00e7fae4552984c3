// The operator's billing commands: plans, subscriptions, the maintenance switch and
// pay-as-you-go per service.
#include <nlohmann/json.hpp>

#include "admin_output.hpp"
#include "commands.hpp"
#include "mediagen/app/database.hpp"
#include "mediagen/billing/subscriptions.hpp"
#include "mediagen/core/time_zone.hpp"
#include "mediagen/db/transact.hpp"

namespace mediagen::app {
namespace {

// "KEY" or "KEY=LIMIT" (tokens per period on that service).
std::optional<billing::ServiceLimit> parse_service_limit(const std::string& text) {
  const auto eq = text.find('=');
  billing::ServiceLimit out{.service = text.substr(0, eq), .usage_limit = std::nullopt};
  if (out.service.empty()) return std::nullopt;
  if (eq == std::string::npos) return out;
  const std::string number = text.substr(eq + 1);
  if (number.empty() || number.size() > 18 || number.find_first_not_of("0123456789") != std::string::npos) {
    return std::nullopt;
  }
  out.usage_limit = std::stoll(number);
  return out;
}

nlohmann::ordered_json optional_json(const std::optional<int>& v) {
  return v ? nlohmann::ordered_json(*v) : nlohmann::ordered_json(nullptr);
}

nlohmann::ordered_json plan_json(const billing::Plan& p) {
  nlohmann::ordered_json services = nlohmann::ordered_json::array();
  for (const auto& s : p.services.value_or(std::vector<billing::ServiceLimit>{})) {
    services.push_back({{"service", s.service},
                        {"usage_limit", s.usage_limit ? nlohmann::ordered_json(*s.usage_limit) : nullptr}});
  }
  return {{"code", p.code},
          {"name", p.name},
          {"tokens_per_period", p.tokens_per_period},
          {"period_days", p.period_days},
          {"concurrency_slots", optional_json(p.concurrency_slots)},
          {"price_minor", p.price_minor},
          {"clone_limit", optional_json(p.clone_limit)},
          {"clone_limit_provider_d", optional_json(p.clone_limit_provider_d)},
          {"services", std::move(services)}};
}

// What the flags say over what the plan already is (a new plan starts from the defaults).
std::optional<std::string> overlay(billing::Plan& plan, const PlanArgs& a) {
  if (a.name) plan.name = *a.name;
  if (a.tokens) plan.tokens_per_period = *a.tokens;
  if (a.period_days) plan.period_days = *a.period_days;
  if (a.slots) plan.concurrency_slots = *a.slots > 0 ? std::optional<int>(*a.slots) : std::nullopt;
  if (a.price) plan.price_minor = *a.price;
  if (a.clone_limit) plan.clone_limit = *a.clone_limit;
  if (a.clone_limit_provider_d) plan.clone_limit_provider_d = *a.clone_limit_provider_d;
  if (!a.services.empty()) {
    plan.services.emplace();
    for (const auto& text : a.services) {
      auto limit = parse_service_limit(text);
      if (!limit) return "--service takes KEY or KEY=TOKENS, not " + text;
      plan.services->push_back(std::move(*limit));
    }
  } else if (a.no_services) {
    plan.services.emplace();
  }
  return std::nullopt;
}

}  // namespace

int admin_plan_upsert(const Config& config, const PlanArgs& args) {
  Database database(config);
  db::Db& db = database.db();
  try {
    const auto plan = db::transact(db, [&](db::Tx& tx) {
      auto existing = billing::find_plan(db, tx, args.code);
      if (!existing && (!args.name || !args.tokens)) throw std::invalid_argument("a new plan needs --name and --tokens");
      billing::Plan p = existing.value_or(billing::Plan{.code = args.code});
      if (existing && args.services.empty() && !args.no_services) p.services.reset();  // kept as they are
      if (auto wrong = overlay(p, args)) throw std::invalid_argument(*wrong);
      billing::upsert_plan(db, tx, p);
      return *billing::find_plan(db, tx, args.code);
    });
    print(plan_json(plan));
  } catch (const std::invalid_argument& e) {
    return fail(e.what());
  }
  return 0;
}

int admin_subscription_grant(const Config& config, std::int64_t user, const std::string& plan,
                             const std::string& expires_at) {
  std::optional<TimePoint> expires;
  if (!expires_at.empty()) {
    expires = parse_iso8601(expires_at);
    if (!expires) return fail("--expires-at must be ISO 8601 with an offset");
  }
  Database database(config);
  db::Db& db = database.db();
  try {
    const auto g = billing::grant_subscription(db, UserId{user}, plan, expires);
    const auto utc = TimeZone::utc();
    print({{"id", g.subscription_id},
           {"user", user},
           {"plan", g.plan.code},
           {"starts_at", utc.format(g.starts_at)},
           {"expires_at", utc.format(g.expires_at)},
           {"quota_tokens", g.quota_tokens}});
  } catch (const std::invalid_argument& e) {
    return fail(e.what());
  }
  return 0;
}

int admin_maintenance(const Config& config, bool on) {
  Database database(config);
  db::Db& db = database.db();
  billing::set_maintenance(db, on);
  print({{"maintenance", on}});
  return 0;
}

int admin_billing_confirm_mode(const Config& config, bool on) {
  Database database(config);
  billing::set_confirm_mode(database.db(), on);
  print({{"confirm_mode", on}});
  return 0;
}

int admin_service_payg(const Config& config, const std::string& service, bool on) {
  Database database(config);
  if (!billing::set_service_payg(database.db(), service, on)) return fail("no service with key " + service);
  print({{"service", service}, {"payg", on}});
  return 0;
}

int admin_subscription_cancel(const Config& config, std::int64_t user) {
  Database database(config);
  try {
    const auto c = billing::cancel_subscription(database.db(), UserId{user});
    print({{"id", c.subscription_id}, {"user", user}, {"plan", c.plan}, {"lapsed_tokens", c.lapsed_tokens}});
  } catch (const std::invalid_argument& e) {
    return fail(e.what());
  }
  return 0;
}

}  // namespace mediagen::app
