#pragma once
// Plans and subscriptions: a live subscription puts its plan's tokens for the period into the
// user's quota account, which orders spend before the balance (spec 1, "Billing").
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "mediagen/core/clock.hpp"
#include "mediagen/core/ids.hpp"
#include "mediagen/db/db.hpp"

namespace mediagen::billing {

// A service a plan entitles: its quota may be spent there, up to `usage_limit` tokens per
// period when set.
struct ServiceLimit {
  std::string service;
  std::optional<std::int64_t> usage_limit;
};

struct Plan {
  std::string code;
  std::string name;
  std::int64_t tokens_per_period = 0;
  int period_days = 30;
  std::optional<int> concurrency_slots;  // orders active at once; nullopt: no limit
  std::int64_t price_minor = 0;
  // Voice clones (spec 4.5): provider_c and provider_d apart; nullopt: the default (10).
  std::optional<int> clone_limit;
  std::optional<int> clone_limit_provider_d;
  // The services it entitles. nullopt: every service for a new plan, unchanged for one that
  // exists.
  std::optional<std::vector<ServiceLimit>> services;
};

// Creates or changes a plan by code, with its limits (plan_limits). Throws
// std::invalid_argument for a service key that does not exist.
void upsert_plan(db::Db& db, db::Tx& tx, const Plan& plan);
// A plan by code, with the services it entitles; nullopt when there is none.
std::optional<Plan> find_plan(db::Db& db, db::Tx& tx, const std::string& code);

// The demo plans (CONTRACTS: starter with a speech token quota and concurrency slots, and
// pro), upserted by code.
std::vector<Plan> seed_plans(db::Db& db, db::Tx& tx);

struct Grant {
  std::int64_t subscription_id = 0;
  Plan plan;
  TimePoint starts_at;
  TimePoint expires_at;
  std::int64_t quota_tokens = 0;  // the quota balance after the grant
};

// Starts a subscription now (until `expires_at`, default one period). What an earlier
// subscription left in the quota account lapses ("quota_expire"); the plan's tokens are granted
// ("quota_grant"), both through the ledger. Throws std::invalid_argument for an unknown user or
// plan, or an expiry not in the future.
Grant grant_subscription(db::Db& db, UserId user, const std::string& plan_code, std::optional<TimePoint> expires_at);

struct Cancellation {
  std::int64_t subscription_id = 0;
  std::string plan;
  std::int64_t lapsed_tokens = 0;  // the quota left, returned to the platform ("quota_cancel")
};

// Ends the user's live subscription now; what its quota had left lapses through the ledger.
// Orders already running keep what they locked. Throws std::invalid_argument when the user has
// no live subscription.
Cancellation cancel_subscription(db::Db& db, UserId user);

// Opens or closes a service to pay-as-you-go (services.payg_enabled); false for an unknown key.
bool set_service_payg(db::Db& db, const std::string& service, bool on);

// Pauses or resumes work intake (503 service_maintenance).
void set_maintenance(db::Db& db, bool on);

// The explicit-confirmation fallback of spec 7.1 (service_switches 'payg_confirm'): on, an order
// that takes money from the balance needs a confirmed top-up quote (orders/topup_quote.hpp).
void set_confirm_mode(db::Db& db, bool on);

}  // namespace mediagen::billing
