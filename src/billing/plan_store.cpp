// Plans and their limits (migration 0011): the plan row, the entitlement rows every plan has
// (shared token quota; concurrency slots when it has them) and the services it entitles.
#include <stdexcept>

#include "mediagen/billing/subscriptions.hpp"
#include "mediagen/db/fields.hpp"
#include "mediagen/db/pg.hpp"

namespace mediagen::billing {
namespace {

const db::Statement kUpsertPlan{
    "plans_upsert",
    "INSERT INTO plans (code, name, tokens_per_period, period_days, concurrency_slots, price_minor, clone_limit,"
    " clone_limit_provider_d)"
    " VALUES ($1, $2, $3, $4, NULLIF($5, 0), $6, $7, $8)"
    " ON CONFLICT (code) DO UPDATE SET name = EXCLUDED.name, tokens_per_period = EXCLUDED.tokens_per_period,"
    " period_days = EXCLUDED.period_days, concurrency_slots = EXCLUDED.concurrency_slots,"
    " price_minor = EXCLUDED.price_minor, clone_limit = EXCLUDED.clone_limit,"
    " clone_limit_provider_d = EXCLUDED.clone_limit_provider_d, is_active = true, updated_at = now()"
    " RETURNING id, (xmax = 0)"};
const db::Statement kAddEntitlement{
    "plans_add_entitlement",
    "INSERT INTO plan_limits (plan_id, entitlement_id) SELECT $1, id FROM entitlements WHERE code = $2"
    " ON CONFLICT (plan_id, entitlement_id) WHERE entitlement_id IS NOT NULL DO NOTHING"};
const db::Statement kDropEntitlement{
    "plans_drop_entitlement",
    "DELETE FROM plan_limits WHERE plan_id = $1 AND entitlement_id = (SELECT id FROM entitlements WHERE code = $2)"};
const db::Statement kServiceId{"plans_service_id", "SELECT id FROM services WHERE key = $1"};
const db::Statement kEntitleAll{
    "plans_entitle_all",
    "INSERT INTO plan_limits (plan_id, service_id) SELECT $1, id FROM services"
    " ON CONFLICT (plan_id, service_id) WHERE service_id IS NOT NULL DO NOTHING"};
const db::Statement kKeepServices{
    "plans_keep_services",
    "DELETE FROM plan_limits WHERE plan_id = $1 AND service_id IS NOT NULL AND NOT (service_id = ANY($2::bigint[]))"};
const db::Statement kEntitle{
    "plans_entitle",
    "INSERT INTO plan_limits (plan_id, service_id, usage_limit) VALUES ($1, $2, $3)"
    " ON CONFLICT (plan_id, service_id) WHERE service_id IS NOT NULL DO UPDATE SET usage_limit = EXCLUDED.usage_limit"};

const db::Statement kFind{
    "plans_find",
    "SELECT code, name, tokens_per_period, period_days, concurrency_slots, price_minor, clone_limit,"
    " clone_limit_provider_d, id FROM plans WHERE code = $1"};
const db::Statement kServices{
    "plans_services",
    "SELECT sv.key, l.usage_limit FROM plan_limits l JOIN services sv ON sv.id = l.service_id"
    " WHERE l.plan_id = $1 ORDER BY sv.position, sv.id"};

void entitle_services(db::Db& db, db::Tx& tx, std::int64_t plan, const std::vector<ServiceLimit>& services) {
  std::vector<std::int64_t> ids;
  for (const auto& s : services) {
    const auto rows = db.exec(tx, kServiceId, s.service);
    if (rows.empty()) throw std::invalid_argument("no service with key " + s.service);
    ids.push_back(rows[0][0].as<std::int64_t>());
  }
  std::string array = "{";
  for (std::size_t i = 0; i < ids.size(); ++i) array += (i ? "," : "") + std::to_string(ids[i]);
  db.exec(tx, kKeepServices, plan, array + "}");
  for (std::size_t i = 0; i < ids.size(); ++i) db.exec(tx, kEntitle, plan, ids[i], services[i].usage_limit);
}

}  // namespace

std::optional<Plan> find_plan(db::Db& db, db::Tx& tx, const std::string& code) {
  const auto rows = db.exec(tx, kFind, code);
  if (rows.empty()) return std::nullopt;
  const auto& r = rows[0];
  Plan p{.code = r[0].as<std::string>(),
         .name = r[1].as<std::string>(),
         .tokens_per_period = r[2].as<std::int64_t>(),
         .period_days = r[3].as<int>(),
         .concurrency_slots = db::optional_of<int>(r[4]),
         .price_minor = r[5].as<std::int64_t>(),
         .clone_limit = db::optional_of<int>(r[6]),
         .clone_limit_provider_d = db::optional_of<int>(r[7])};
  p.services.emplace();
  for (const auto& s : db.exec(tx, kServices, r[8].as<std::int64_t>())) {
    p.services->push_back({s[0].as<std::string>(), db::optional_of<std::int64_t>(s[1])});
  }
  return p;
}

void upsert_plan(db::Db& db, db::Tx& tx, const Plan& p) {
  const auto row = db.exec(tx, kUpsertPlan, p.code, p.name, p.tokens_per_period, p.period_days,
                           p.concurrency_slots.value_or(0), p.price_minor, p.clone_limit, p.clone_limit_provider_d);
  const auto plan = row[0][0].as<std::int64_t>();
  const bool created = row[0][1].as<bool>();
  db.exec(tx, kAddEntitlement, plan, std::string("generation_tokens"));
  if (p.concurrency_slots) db.exec(tx, kAddEntitlement, plan, std::string("concurrent_tasks"));
  else db.exec(tx, kDropEntitlement, plan, std::string("concurrent_tasks"));
  if (p.services) entitle_services(db, tx, plan, *p.services);
  else if (created) db.exec(tx, kEntitleAll, plan);
}

}  // namespace mediagen::billing
