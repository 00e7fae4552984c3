#include "reseller_store.hpp"

#include "mediagen/db/fields.hpp"
#include "mediagen/db/pg.hpp"

namespace mediagen::reseller::store {
namespace {

#define MG_CODE_COLUMNS                                                                                  \
  "g.id::text, g.reseller_id, g.code_sealed, g.code_masked, g.nominal, g.cost, g.discount_bps, g.asset_id," \
  " a.code, a.precision, g.source, g.funding, g.status,"                                                 \
  " (extract(epoch from g.activatable_at) * 1000000)::bigint,"                                           \
  " (extract(epoch from g.redeemed_at) * 1000000)::bigint,"                                              \
  " (extract(epoch from g.cancelled_at) * 1000000)::bigint,"                                             \
  " (extract(epoch from g.created_at) * 1000000)::bigint,"                                               \
  " (extract(epoch from g.updated_at) * 1000000)::bigint, g.redeemed_by"
// Exact to the microsecond (to_timestamp of a double could be one off).
#define MG_MICROS(n) "(timestamptz 'epoch' + $" #n "::bigint * interval '1 microsecond')"

const db::Statement kUserExists{"reseller_user_exists",
                                "SELECT 1 FROM users WHERE id = $1 AND deleted_at IS NULL"};
const db::Statement kFindReseller{
    "reseller_find",
    "SELECT user_id, discount_bps, cancel_window_minutes, enabled, (extract(epoch from created_at) * 1000000)::bigint"
    " FROM resellers WHERE user_id = $1"};
const db::Statement kFindResellerShared{
    "reseller_find_shared",
    "SELECT user_id, discount_bps, cancel_window_minutes, enabled, (extract(epoch from created_at) * 1000000)::bigint"
    " FROM resellers WHERE user_id = $1 FOR SHARE"};
const db::Statement kUpsertReseller{
    "reseller_upsert",
    "INSERT INTO resellers (user_id, discount_bps, cancel_window_minutes, enabled)"
    " VALUES ($1, coalesce($2, 0), coalesce($3, 60), true)"
    " ON CONFLICT (user_id) DO UPDATE SET discount_bps = coalesce($2, resellers.discount_bps),"
    " cancel_window_minutes = coalesce($3, resellers.cancel_window_minutes), enabled = true, updated_at = now()"
    " RETURNING user_id, discount_bps, cancel_window_minutes, enabled,"
    " (extract(epoch from created_at) * 1000000)::bigint"};
const db::Statement kMoneyAsset{
    "reseller_money_asset",
    "SELECT id, code, precision FROM currency_assets"
    " WHERE code = $1 AND kind <> 'tokens' AND is_active AND deleted_at IS NULL"};
const db::Statement kInsertCode{
    "reseller_insert_code",
    "WITH g AS (INSERT INTO gift_codes (id, reseller_id, code_hash, code_sealed, code_masked, nominal, cost,"
    "  discount_bps, asset_id, source, funding, status, activatable_at, created_at, updated_at)"
    " VALUES ($1::uuid, $2, $3, $4, $5, $6, $7, $8, $9, 'reseller', 'reseller_balance', 'active',"
    "  " MG_MICROS(10) ", " MG_MICROS(11) ", " MG_MICROS(11) ") RETURNING *)"
    " SELECT " MG_CODE_COLUMNS " FROM g JOIN currency_assets a ON a.id = g.asset_id"};
const db::Statement kFindCode{"reseller_find_code",
                              "SELECT " MG_CODE_COLUMNS " FROM gift_codes g JOIN currency_assets a ON a.id = g.asset_id"
                              " WHERE g.id = $1::uuid"};
// OF g: only the code row is locked, never the asset row every issue reads.
const db::Statement kFindCodeLocked{
    "reseller_find_code_locked",
    "SELECT " MG_CODE_COLUMNS " FROM gift_codes g JOIN currency_assets a ON a.id = g.asset_id"
    " WHERE g.id = $1::uuid FOR UPDATE OF g"};
const db::Statement kFindByHashLocked{
    "reseller_find_hash_locked",
    "SELECT " MG_CODE_COLUMNS " FROM gift_codes g JOIN currency_assets a ON a.id = g.asset_id"
    " WHERE g.code_hash = $1 FOR UPDATE OF g"};
// Newest first; the id breaks ties so pages never overlap.
const db::Statement kPage{
    "reseller_page_codes",
    "SELECT " MG_CODE_COLUMNS " FROM gift_codes g JOIN currency_assets a ON a.id = g.asset_id"
    " WHERE g.reseller_id = $1 AND ($2::text IS NULL OR g.status = $2)"
    " ORDER BY g.created_at DESC, g.id DESC LIMIT $3 OFFSET $4"};
const db::Statement kCount{"reseller_count_codes",
                           "SELECT count(*) FROM gift_codes WHERE reseller_id = $1 AND ($2::text IS NULL OR status = $2)"};
const db::Statement kCancel{
    "reseller_cancel_code",
    "WITH g AS (UPDATE gift_codes SET status = 'cancelled', cancelled_at = " MG_MICROS(2) ", updated_at = " MG_MICROS(2)
    " WHERE id = $1::uuid AND status = 'active' RETURNING *)"
    " SELECT " MG_CODE_COLUMNS " FROM g JOIN currency_assets a ON a.id = g.asset_id"};
const db::Statement kRedeem{
    "reseller_redeem_code",
    "WITH g AS (UPDATE gift_codes SET status = 'redeemed', redeemed_by = $2, redeemed_at = " MG_MICROS(3)
    ", updated_at = " MG_MICROS(3) " WHERE id = $1::uuid AND status = 'active' RETURNING *)"
    " SELECT " MG_CODE_COLUMNS " FROM g JOIN currency_assets a ON a.id = g.asset_id"};
// Codes issued in [from, to), by what they are now, per asset.
const db::Statement kStats{
    "reseller_stats",
    "SELECT a.id, a.code, a.precision, count(*),"
    " count(*) FILTER (WHERE g.status = 'active'), count(*) FILTER (WHERE g.status = 'redeemed'),"
    " count(*) FILTER (WHERE g.status = 'cancelled'), sum(g.nominal)::bigint, sum(g.cost)::bigint,"
    " coalesce(sum(g.nominal) FILTER (WHERE g.status = 'redeemed'), 0)::bigint,"
    " coalesce(sum(g.cost) FILTER (WHERE g.status = 'cancelled'), 0)::bigint"
    " FROM gift_codes g JOIN currency_assets a ON a.id = g.asset_id"
    " WHERE g.reseller_id = $1 AND g.created_at >= " MG_MICROS(2) " AND g.created_at < " MG_MICROS(3)
    " GROUP BY a.id, a.code, a.precision ORDER BY a.id"};

std::int64_t micros(TimePoint t) {
  return std::chrono::duration_cast<std::chrono::microseconds>(t.time_since_epoch()).count();
}

std::optional<TimePoint> optional_time(const pqxx::field& f) {
  if (f.is_null()) return std::nullopt;
  return db::time_from_micros(f);
}

ResellerRow reseller_from(const pqxx::row& r) {
  return {UserId{r[0].as<std::int64_t>()}, r[1].as<std::int64_t>(), r[2].as<std::int64_t>(), r[3].as<bool>(),
          db::time_from_micros(r[4])};
}

CodeRow code_from(const pqxx::row& r) {
  CodeRow out;
  GiftCode& c = out.code;
  c.uuid = r[0].as<std::string>();
  c.reseller = UserId{db::optional_of<std::int64_t>(r[1]).value_or(0)};
  out.sealed = r[2].as<std::string>();
  c.code_masked = r[3].as<std::string>();
  c.nominal = r[4].as<std::int64_t>();
  c.cost = r[5].as<std::int64_t>();
  c.discount_bps = r[6].as<std::int64_t>();
  c.asset = CurrencyAsset{AssetId{r[7].as<std::int64_t>()}, r[8].as<std::string>(), r[9].as<int>()};
  c.source = r[10].as<std::string>();
  c.funding = r[11].as<std::string>();
  c.status = parse_gift_code_status(r[12].as<std::string>()).value_or(GiftCodeStatus::cancelled);
  c.activatable_at = optional_time(r[13]);
  c.redeemed_at = optional_time(r[14]);
  c.cancelled_at = optional_time(r[15]);
  c.created_at = db::time_from_micros(r[16]);
  c.updated_at = db::time_from_micros(r[17]);
  out.redeemed_by = db::optional_of<std::int64_t>(r[18]);
  return out;
}

std::optional<CodeRow> first(const pqxx::result& rows) {
  if (rows.empty()) return std::nullopt;
  return code_from(rows[0]);
}

std::optional<std::string> status_param(std::optional<GiftCodeStatus> status) {
  if (!status) return std::nullopt;
  return std::string(to_string(*status));
}

}  // namespace

bool user_exists(db::Db& db, db::Tx& tx, UserId user) { return !db.exec(tx, kUserExists, user.value).empty(); }

std::optional<ResellerRow> find_reseller(db::Db& db, db::Tx& tx, UserId user, bool lock) {
  const auto rows = db.exec(tx, lock ? kFindResellerShared : kFindReseller, user.value);
  if (rows.empty()) return std::nullopt;
  return reseller_from(rows[0]);
}

ResellerRow upsert_reseller(db::Db& db, db::Tx& tx, UserId user, std::optional<std::int64_t> discount_bps,
                            std::optional<std::int64_t> cancel_window_minutes) {
  return reseller_from(db.exec(tx, kUpsertReseller, user.value, discount_bps, cancel_window_minutes)[0]);
}

std::optional<CurrencyAsset> money_asset(db::Db& db, db::Tx& tx, std::string_view code) {
  const auto rows = db.exec(tx, kMoneyAsset, std::string(code));
  if (rows.empty()) return std::nullopt;
  return CurrencyAsset{AssetId{rows[0][0].as<std::int64_t>()}, rows[0][1].as<std::string>(), rows[0][2].as<int>()};
}

CodeRow insert_code(db::Db& db, db::Tx& tx, const NewCode& c) {
  std::optional<std::int64_t> activatable;
  if (c.activatable_at) activatable = micros(*c.activatable_at);
  return code_from(db.exec(tx, kInsertCode, c.uuid, c.reseller.value, c.hash, c.sealed, c.masked, c.nominal, c.cost,
                           c.discount_bps, c.asset.value, activatable, micros(c.now))[0]);
}

std::optional<CodeRow> find_code(db::Db& db, db::Tx& tx, std::string_view uuid, bool lock) {
  return first(db.exec(tx, lock ? kFindCodeLocked : kFindCode, std::string(uuid)));
}

std::optional<CodeRow> find_code_by_hash(db::Db& db, db::Tx& tx, std::string_view hash, bool lock) {
  (void)lock;  // always locked: a lookup by hash is a redeem
  return first(db.exec(tx, kFindByHashLocked, std::string(hash)));
}

std::vector<CodeRow> page_codes(db::Db& db, db::Tx& tx, UserId reseller, std::optional<GiftCodeStatus> status,
                                std::int64_t offset, std::int64_t limit) {
  std::vector<CodeRow> out;
  for (const auto& row : db.exec(tx, kPage, reseller.value, status_param(status), limit, offset)) {
    out.push_back(code_from(row));
  }
  return out;
}

std::int64_t count_codes(db::Db& db, db::Tx& tx, UserId reseller, std::optional<GiftCodeStatus> status) {
  return db.exec(tx, kCount, reseller.value, status_param(status))[0][0].as<std::int64_t>();
}

std::optional<CodeRow> mark_cancelled(db::Db& db, db::Tx& tx, std::string_view uuid, TimePoint at) {
  return first(db.exec(tx, kCancel, std::string(uuid), micros(at)));
}

std::optional<CodeRow> mark_redeemed(db::Db& db, db::Tx& tx, std::string_view uuid, UserId user, TimePoint at) {
  return first(db.exec(tx, kRedeem, std::string(uuid), user.value, micros(at)));
}

std::vector<StatsBucket> stats(db::Db& db, db::Tx& tx, UserId reseller, TimePoint from, TimePoint to) {
  std::vector<StatsBucket> out;
  for (const auto& r : db.exec(tx, kStats, reseller.value, micros(from), micros(to))) {
    out.push_back({.asset = {AssetId{r[0].as<std::int64_t>()}, r[1].as<std::string>(), r[2].as<int>()},
                   .issued = r[3].as<std::int64_t>(),
                   .active = r[4].as<std::int64_t>(),
                   .redeemed = r[5].as<std::int64_t>(),
                   .cancelled = r[6].as<std::int64_t>(),
                   .nominal_issued = r[7].as<std::int64_t>(),
                   .cost_issued = r[8].as<std::int64_t>(),
                   .nominal_redeemed = r[9].as<std::int64_t>(),
                   .cost_cancelled = r[10].as<std::int64_t>()});
  }
  return out;
}

}  // namespace mediagen::reseller::store
