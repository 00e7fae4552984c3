#include "mediagen/account/users.hpp"

#include <stdexcept>

#include "mediagen/billing/ledger.hpp"
#include "mediagen/db/async_pg.hpp"
#include "mediagen/db/fields.hpp"
#include "mediagen/db/pg.hpp"

namespace mediagen::account {
namespace {

// The wallet's owner is spelled from the parameter, not from u.id: so it is a constant and the
// lookup uses the (kind, owner, asset_id) key instead of reading every wallet.
const db::Statement kProfile{
    "account_profile",
    "SELECT u.id, u.email, u.name, u.locale, u.blocked_at IS NOT NULL,"
    " extract(epoch from u.created_at)::bigint, extract(epoch from u.updated_at)::bigint,"
    " COALESCE(b.balance, 0), a.id, a.code, a.precision,"
    " s.id, s.code, s.name, (extract(epoch from s.expires_at) * 1000000)::bigint"
    " FROM users u CROSS JOIN currency_assets a"
    " LEFT JOIN ledger_accounts b ON b.kind = 'wallet' AND b.owner = 'user:' || $1::bigint AND b.asset_id = a.id"
    " LEFT JOIN LATERAL (SELECT s.id, p.code, p.name, s.expires_at FROM subscriptions s JOIN plans p ON p.id = s.plan_id"
    "  WHERE s.user_id = u.id AND s.cancelled_at IS NULL AND s.starts_at <= now() AND s.expires_at > now()"
    "  ORDER BY s.expires_at DESC LIMIT 1) s ON true"
    " WHERE u.id = $1 AND u.deleted_at IS NULL AND a.is_default"};

template <class Field>
TimePoint from_epoch(const Field& f) {
  return TimePoint{std::chrono::seconds{f.template as<std::int64_t>()}};
}

// The rows of kProfile: a libpqxx result or a db::PgResult.
template <class Rows>
std::optional<Profile> profile_from(const Rows& rows) {
  if (rows.empty()) return std::nullopt;
  const auto& r = rows[0];
  Profile p;
  p.id = UserId{r[0].template as<std::int64_t>()};
  p.email = r[1].template as<std::string>();
  p.name = r[2].template as<std::string>();
  p.locale = parse_locale(r[3].template as<std::string>());
  p.blocked = r[4].template as<bool>();
  p.created_at = from_epoch(r[5]);
  p.updated_at = from_epoch(r[6]);
  p.balance = MinorUnits{r[7].template as<std::int64_t>()};
  p.asset = CurrencyAsset{AssetId{r[8].template as<std::int64_t>()}, r[9].template as<std::string>(), r[10].template as<int>()};
  if (!r[11].is_null()) {
    p.plan = LivePlan{.subscription_id = r[11].template as<std::int64_t>(),
                      .code = r[12].template as<std::string>(),
                      .name = r[13].template as<std::string>(),
                      .expires_at = db::time_from_micros(r[14])};
  }
  return p;
}

std::optional<Profile> load(db::Db& db, db::Tx& tx, UserId id) { return profile_from(db.exec(tx, kProfile, id.value)); }

bool plausible_email(const std::string& email) {
  auto at = email.find('@');
  return email.size() <= 254 && at != std::string::npos && at > 0 && at + 1 < email.size() &&
         email.find_first_of(" \t\r\n") == std::string::npos;
}

}  // namespace

Profile create_user(db::Db& db, const NewUser& request) {
  if (!plausible_email(request.email)) throw std::invalid_argument("invalid email: " + request.email);
  if (request.initial_balance.value < 0) throw std::invalid_argument("the initial balance cannot be negative");
  return db::transact(db, [&](db::Tx& tx) {
    auto taken = tx.exec_params("SELECT 1 FROM users WHERE lower(email) = lower($1)", request.email);
    db.count();
    if (!taken.empty()) throw std::invalid_argument("a user with email " + request.email + " already exists");
    auto rows = tx.exec_params("INSERT INTO users (email, name, locale) VALUES ($1, $2, $3) RETURNING id",
                               request.email, request.name, std::string(locale_code(request.locale)));
    db.count();
    UserId id{rows[0][0].template as<std::int64_t>()};
    if (request.initial_balance.value > 0) billing::adjust_wallet(db, tx, id, request.initial_balance, "initial balance");
    return *load(db, tx, id);
  });
}

std::optional<Profile> find_profile(db::Db& db, UserId id) {
  return db::read(db, [&](db::Tx& tx) { return load(db, tx, id); });
}

boost::asio::awaitable<std::optional<Profile>> find_profile(db::AsyncPg& reads, UserId id) {
  co_return profile_from(co_await reads.query(kProfile, id.value));
}

std::optional<Profile> adjust_balance(db::Db& db, UserId id, MinorUnits delta, const std::string& note) {
  return db::transact(db, [&](db::Tx& tx) -> std::optional<Profile> {
    auto exists = tx.exec_params("SELECT 1 FROM users WHERE id = $1 AND deleted_at IS NULL FOR UPDATE", id.value);
    db.count();
    if (exists.empty()) return std::nullopt;
    if (delta.value != 0) billing::adjust_wallet(db, tx, id, delta, note);
    return load(db, tx, id);
  });
}

std::optional<Profile> set_blocked(db::Db& db, UserId id, bool blocked) {
  return db::transact(db, [&](db::Tx& tx) -> std::optional<Profile> {
    auto rows = tx.exec_params(
        "UPDATE users SET blocked_at = CASE WHEN $2 THEN COALESCE(blocked_at, now()) ELSE NULL END,"
        " updated_at = now() WHERE id = $1 AND deleted_at IS NULL RETURNING id",
        id.value, blocked);
    db.count();
    if (rows.empty()) return std::nullopt;
    db.profile_changed(id.value);
    return load(db, tx, id);
  });
}

}  // namespace mediagen::account
