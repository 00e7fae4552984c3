// The reads behind GET /usage, /usage/{service} and /subscriptions (usage.hpp).
#include "mediagen/billing/usage.hpp"

#include "mediagen/db/fields.hpp"
#include "mediagen/db/pg.hpp"

namespace mediagen::billing {
namespace {

using db::optional_of;
using db::time_from_micros;

// One row per limit of the live plan. Consumed: the shared quota is what the period's grant no
// longer has (spent or locked by running orders); slots are the orders active now; a service's
// is what its orders of this period charged or still hold locked.
constexpr const char* kRecordsSql =
    "WITH s AS (SELECT id, plan_id, starts_at, expires_at FROM subscriptions WHERE user_id = $1"
    "  AND cancelled_at IS NULL AND starts_at <= now() AND expires_at > now() ORDER BY expires_at DESC LIMIT 1)"
    " SELECT l.id, l.service_id, sv.key, CASE WHEN $2 = 'ru' THEN COALESCE(sv.name_ru, sv.name) ELSE sv.name END,"
    "  l.entitlement_id, e.code, CASE WHEN $2 = 'ru' THEN e.name_ru ELSE e.name_en END,"
    "  CASE e.code WHEN 'concurrent_tasks' THEN p.concurrency_slots::bigint"
    "   WHEN 'generation_tokens' THEN p.tokens_per_period ELSE l.usage_limit END,"
    "  CASE e.code WHEN 'concurrent_tasks' THEN"
    "    (SELECT count(*) FROM orders o WHERE o.user_id = $1 AND order_is_active(o.status))"
    "   WHEN 'generation_tokens' THEN GREATEST(p.tokens_per_period - COALESCE((SELECT a.balance FROM ledger_accounts a"
    "    WHERE a.kind = 'quota' AND a.owner = 'user:' || $1::text), 0), 0)"
    "   ELSE (SELECT COALESCE(sum(i.consumed_units + i.remaining_locked), 0)::bigint FROM orders o"
    "    JOIN order_items i ON i.order_id = o.id"
    "    WHERE o.user_id = $1 AND o.service_key = sv.key AND o.created_at >= s.starts_at) END,"
    "  (extract(epoch from s.expires_at) * 1000000)::bigint"
    " FROM s JOIN plans p ON p.id = s.plan_id JOIN plan_limits l ON l.plan_id = p.id"
    " LEFT JOIN services sv ON sv.id = l.service_id LEFT JOIN entitlements e ON e.id = l.entitlement_id"
    " WHERE ($3 = '' OR sv.key = $3 OR l.entitlement_id IS NOT NULL)"
    " ORDER BY l.entitlement_id IS NULL, e.id, sv.position, sv.id";
const db::Statement kRecords{"usage_records", kRecordsSql};

const db::Statement kService{
    "usage_service",
    "SELECT id, key, CASE WHEN $2 = 'ru' THEN COALESCE(name_ru, name) ELSE name END, payg_enabled"
    " FROM services WHERE key = $1"};

const db::Statement kSubscriptions{
    "usage_subscriptions",
    "SELECT s.id, p.code, p.name, (extract(epoch from s.starts_at) * 1000000)::bigint,"
    " (extract(epoch from s.expires_at) * 1000000)::bigint,"
    " (extract(epoch from s.cancelled_at) * 1000000)::bigint, p.tokens_per_period, p.concurrency_slots::bigint,"
    " CASE WHEN s.cancelled_at IS NOT NULL THEN 'cancelled' WHEN s.expires_at <= now() THEN 'expired'"
    "  WHEN s.starts_at > now() THEN 'scheduled' ELSE 'active' END,"
    " ARRAY(SELECT sv.key FROM plan_limits l JOIN services sv ON sv.id = l.service_id"
    "  WHERE l.plan_id = p.id ORDER BY sv.position, sv.id)"
    " FROM subscriptions s JOIN plans p ON p.id = s.plan_id WHERE s.user_id = $1"
    " ORDER BY s.starts_at DESC, s.id DESC LIMIT $2"};

UsageRecord read_record(const pqxx::row& r) {
  UsageRecord u;
  u.limit_id = r[0].as<std::int64_t>();
  u.service_id = optional_of<std::int64_t>(r[1]);
  u.service_code = optional_of<std::string>(r[2]);
  u.service_name = optional_of<std::string>(r[3]);
  u.entitlement_id = optional_of<std::int64_t>(r[4]);
  u.entitlement_code = optional_of<std::string>(r[5]);
  u.entitlement_name = optional_of<std::string>(r[6]);
  const bool slots = u.entitlement_code == "concurrent_tasks";
  u.type = slots ? LimitType::concurrency : LimitType::quota;
  u.unit = slots ? "tasks" : "tokens";
  u.ceiling = optional_of<std::int64_t>(r[7]);
  u.consumed = r[8].as<std::int64_t>();
  if (!slots) u.reset_at = time_from_micros(r[9]);
  return u;
}

std::vector<UsageRecord> records(db::Db& db, db::Tx& tx, UserId user, Locale locale, const std::string& service) {
  std::vector<UsageRecord> out;
  for (const auto& r : db.exec(tx, kRecords, user.value, std::string(locale_code(locale)), service)) {
    out.push_back(read_record(r));
  }
  return out;
}

SubscriptionStatus status_of(std::string_view s) {
  if (s == "cancelled") return SubscriptionStatus::cancelled;
  if (s == "expired") return SubscriptionStatus::expired;
  if (s == "scheduled") return SubscriptionStatus::scheduled;
  return SubscriptionStatus::active;
}

}  // namespace

std::string_view to_string(LimitType type) noexcept {
  return type == LimitType::concurrency ? "concurrency" : "quota";
}

std::string_view to_string(SubscriptionStatus status) noexcept {
  switch (status) {
    case SubscriptionStatus::active: return "active";
    case SubscriptionStatus::scheduled: return "scheduled";
    case SubscriptionStatus::cancelled: return "cancelled";
    case SubscriptionStatus::expired: return "expired";
  }
  return "active";
}

std::vector<UsageRecord> read_usage(db::Db& db, UserId user, Locale locale) {
  return db::read(db, [&](db::Tx& tx) { return records(db, tx, user, locale, ""); });
}

std::optional<ServiceUsage> read_service_usage(db::Db& db, UserId user, const std::string& service, Locale locale) {
  return db::read(db, [&](db::Tx& tx) -> std::optional<ServiceUsage> {
    const auto rows = db.exec(tx, kService, service, std::string(locale_code(locale)));
    if (rows.empty()) return std::nullopt;
    ServiceUsage out{.service_id = rows[0][0].as<std::int64_t>(),
                     .service_code = rows[0][1].as<std::string>(),
                     .service_name = rows[0][2].as<std::string>(),
                     .payg_enabled = rows[0][3].as<bool>()};
    out.records = records(db, tx, user, locale, out.service_code);
    for (const auto& r : out.records) out.entitled = out.entitled || r.service_code == out.service_code;
    return out;
  });
}

std::vector<SubscriptionView> list_subscriptions(db::Db& db, UserId user, std::size_t limit) {
  return db::read(db, [&](db::Tx& tx) {
    std::vector<SubscriptionView> out;
    for (const auto& r : db.exec(tx, kSubscriptions, user.value, static_cast<std::int64_t>(limit))) {
      SubscriptionView v{.id = r[0].as<std::int64_t>(),
                         .plan_code = r[1].as<std::string>(),
                         .plan_name = r[2].as<std::string>(),
                         .status = status_of(r[8].as<std::string>()),
                         .starts_at = time_from_micros(r[3]),
                         .expires_at = time_from_micros(r[4]),
                         .cancelled_at = r[5].is_null() ? std::nullopt : std::optional(time_from_micros(r[5])),
                         .tokens_per_period = r[6].as<std::int64_t>(),
                         .concurrency_slots = optional_of<std::int64_t>(r[7])};
      auto services = r[9].as_array();
      for (auto elem = services.get_next(); elem.first != pqxx::array_parser::done; elem = services.get_next()) {
        if (elem.first == pqxx::array_parser::string_value) v.services.push_back(elem.second);
      }
      out.push_back(std::move(v));
    }
    return out;
  });
}

}  // namespace mediagen::billing
