#include "mediagen/billing/subscriptions.hpp"

#include <chrono>
#include <stdexcept>

#include "mediagen/billing/ledger.hpp"
#include "mediagen/db/pg.hpp"

namespace mediagen::billing {
namespace {

const db::Statement kPlan{
    "billing_plan",
    "SELECT id, code, name, tokens_per_period, period_days, COALESCE(concurrency_slots, 0), price_minor"
    " FROM plans WHERE code = $1 AND is_active"};
const db::Statement kLockUser{"billing_lock_user", "SELECT 1 FROM users WHERE id = $1 AND deleted_at IS NULL FOR UPDATE"};
const db::Statement kEndCurrent{
    "billing_end_subscriptions",
    "UPDATE subscriptions SET cancelled_at = now() WHERE user_id = $1 AND cancelled_at IS NULL AND expires_at > now()"};
const db::Statement kInsert{
    "billing_insert_subscription",
    "INSERT INTO subscriptions (user_id, plan_id, expires_at)"
    " VALUES ($1, $2, COALESCE(to_timestamp(NULLIF($3, 0)), now() + make_interval(days => $4)))"
    " RETURNING id, (extract(epoch from starts_at) * 1000000)::bigint, (extract(epoch from expires_at) * 1000000)::bigint"};
const db::Statement kSetSwitch{
    "billing_set_switch",
    "INSERT INTO service_switches (name, enabled) VALUES ($1, $2)"
    " ON CONFLICT (name) DO UPDATE SET enabled = EXCLUDED.enabled, updated_at = now()"};

const db::Statement kCancel{
    "billing_cancel_subscription",
    "UPDATE subscriptions s SET cancelled_at = now() FROM plans p WHERE s.user_id = $1 AND p.id = s.plan_id"
    " AND s.cancelled_at IS NULL AND s.starts_at <= now() AND s.expires_at > now() RETURNING s.id, p.code"};

const db::Statement kSetPayg{"billing_set_payg",
                             "UPDATE services SET payg_enabled = $2, updated_at = now() WHERE key = $1"};

TimePoint from_micros(std::int64_t us) { return TimePoint{std::chrono::microseconds{us}}; }

}  // namespace

std::vector<Plan> seed_plans(db::Db& db, db::Tx& tx) {
  const std::vector<Plan> plans{
      {.code = "starter", .name = "Starter", .tokens_per_period = 100000, .period_days = 30, .concurrency_slots = 3,
       .price_minor = 900, .clone_limit = 5, .clone_limit_provider_d = 2},
      {.code = "pro", .name = "Pro", .tokens_per_period = 1000000, .period_days = 30, .concurrency_slots = 20,
       .price_minor = 4900, .clone_limit = 30, .clone_limit_provider_d = 10},
  };
  for (const auto& p : plans) upsert_plan(db, tx, p);
  return plans;
}

Grant grant_subscription(db::Db& db, UserId user, const std::string& plan_code, std::optional<TimePoint> expires_at) {
  const auto now = std::chrono::system_clock::now();
  if (expires_at && *expires_at <= now) throw std::invalid_argument("--expires-at must be in the future");
  return db::transact(db, [&](db::Tx& tx) {
    if (db.exec(tx, kLockUser, user.value).empty()) {
      throw std::invalid_argument("no user with id " + std::to_string(user.value));
    }
    const auto rows = db.exec(tx, kPlan, plan_code);
    if (rows.empty()) throw std::invalid_argument("no active plan with code " + plan_code);
    Grant g;
    const auto& r = rows[0];
    g.plan = {.code = r[1].as<std::string>(),
              .name = r[2].as<std::string>(),
              .tokens_per_period = r[3].as<std::int64_t>(),
              .period_days = r[4].as<int>(),
              .concurrency_slots = r[5].as<int>() ? std::optional<int>(r[5].as<int>()) : std::nullopt,
              .price_minor = r[6].as<std::int64_t>()};
    db.exec(tx, kEndCurrent, user.value);
    db.profile_changed(user.value);  // the plan GET /user shows
    const std::int64_t expires_epoch =
        expires_at ? std::chrono::duration_cast<std::chrono::seconds>(expires_at->time_since_epoch()).count() : 0;
    const auto sub = db.exec(tx, kInsert, user.value, r[0].as<std::int64_t>(), expires_epoch, g.plan.period_days);
    g.subscription_id = sub[0][0].as<std::int64_t>();
    g.starts_at = from_micros(sub[0][1].as<std::int64_t>());
    g.expires_at = from_micros(sub[0][2].as<std::int64_t>());

    const AssetId tokens = token_asset(db, tx);
    const auto quota = Account::quota(user, tokens);
    const auto source = Account::platform(AccountKind::quota_funding, tokens);
    const std::string ref = std::to_string(g.subscription_id);
    post(db, tx, {.kind = "quota_expire", .reference = ref, .user = user, .legs = {{quota, source, balance(db, tx, quota)}}});
    post(db, tx, {.kind = "quota_grant", .reference = ref, .user = user, .legs = {{source, quota, g.plan.tokens_per_period}}});
    g.quota_tokens = balance(db, tx, quota);
    return g;
  });
}

Cancellation cancel_subscription(db::Db& db, UserId user) {
  return db::transact(db, [&](db::Tx& tx) {
    if (db.exec(tx, kLockUser, user.value).empty()) {
      throw std::invalid_argument("no user with id " + std::to_string(user.value));
    }
    const auto rows = db.exec(tx, kCancel, user.value);
    if (rows.empty()) throw std::invalid_argument("user " + std::to_string(user.value) + " has no live subscription");
    db.profile_changed(user.value);
    Cancellation c{.subscription_id = rows[0][0].as<std::int64_t>(), .plan = rows[0][1].as<std::string>()};
    const AssetId tokens = token_asset(db, tx);
    const auto quota = Account::quota(user, tokens);
    const auto sink = Account::platform(AccountKind::quota_funding, tokens);
    c.lapsed_tokens = balance(db, tx, quota);
    post(db, tx, {.kind = "quota_cancel", .reference = std::to_string(c.subscription_id), .user = user,
                  .legs = {{quota, sink, c.lapsed_tokens}}});
    return c;
  });
}

bool set_service_payg(db::Db& db, const std::string& service, bool on) {
  return db::transact(db, [&](db::Tx& tx) { return db.exec(tx, kSetPayg, service, on).affected_rows() > 0; });
}

void set_maintenance(db::Db& db, bool on) {
  db::transact(db, [&](db::Tx& tx) { db.exec(tx, kSetSwitch, std::string("maintenance"), on); });
}

void set_confirm_mode(db::Db& db, bool on) {
  db::transact(db, [&](db::Tx& tx) { db.exec(tx, kSetSwitch, std::string("payg_confirm"), on); });
}

}  // namespace mediagen::billing
