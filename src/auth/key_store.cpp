#include "mediagen/auth/keys.hpp"

#include "mediagen/auth/key_json.hpp"

#include <stdexcept>

#include "mediagen/core/time_zone.hpp"
#include "mediagen/db/pg.hpp"

namespace mediagen::auth {
namespace {

// One column list for every query that returns a key, so from_row reads them all alike.
#define MG_KEY_COLUMNS                                                                              \
  "k.id, k.user_id, k.key_hash, k.name, k.key_prefix, k.scopes, k.rate_per_minute, k.rate_per_hour," \
  " k.rate_per_day, k.tokens_per_minute, k.tokens_per_hour, k.tokens_per_day, k.tokens_per_month,"   \
  " k.tokens_quota_limit, k.ai_monthly_limit_minor, extract(epoch from k.expires_at)::bigint,"      \
  " extract(epoch from k.created_at)::bigint, k.disabled_at IS NOT NULL,"                           \
  " (u.blocked_at IS NOT NULL OR u.deleted_at IS NOT NULL), u.locale"

const db::Statement kFindByHash{
    "auth_find_key_by_hash",
    "SELECT " MG_KEY_COLUMNS " FROM api_keys k JOIN users u ON u.id = k.user_id WHERE k.key_hash = $1"};

std::optional<std::int64_t> opt_i64(const pqxx::field& f) {
  if (f.is_null()) return std::nullopt;
  return f.as<std::int64_t>();
}

std::vector<std::string> parse_text_array(const pqxx::field& f) {
  std::vector<std::string> out;
  auto parser = f.as_array();
  for (auto item = parser.get_next(); item.first != pqxx::array_parser::done; item = parser.get_next()) {
    if (item.first == pqxx::array_parser::string_value) out.push_back(item.second);
  }
  return out;
}

Principal from_row(const pqxx::row& r) {
  Principal p;
  p.key_id = ApiKeyId{r[0].as<std::int64_t>()};
  p.user_id = UserId{r[1].as<std::int64_t>()};
  pqxx::binarystring hash(r[2]);
  if (hash.size() == p.key_hash.size()) std::copy(hash.begin(), hash.end(), p.key_hash.begin());
  p.key_name = r[3].as<std::string>();
  p.key_prefix = r[4].as<std::string>();
  p.scopes = ScopeSet::from_names(parse_text_array(r[5])).value_or(ScopeSet{});
  p.limits.requests.per_minute = opt_i64(r[6]);
  p.limits.requests.per_hour = opt_i64(r[7]);
  p.limits.requests.per_day = opt_i64(r[8]);
  p.limits.tokens.per_minute = opt_i64(r[9]);
  p.limits.tokens.per_hour = opt_i64(r[10]);
  p.limits.tokens.per_day = opt_i64(r[11]);
  p.limits.tokens.per_month = opt_i64(r[12]);
  p.limits.tokens.quota = opt_i64(r[13]);
  p.limits.ai_monthly_limit_minor = opt_i64(r[14]);
  if (auto e = opt_i64(r[15])) p.expires_at = TimePoint{std::chrono::seconds{*e}};
  p.created_at = TimePoint{std::chrono::seconds{r[16].as<std::int64_t>()}};
  p.key_disabled = r[17].as<bool>();
  p.user_blocked = r[18].as<bool>();
  p.user_locale = parse_locale(r[19].as<std::string>());
  return p;
}

std::optional<std::string> opt_str(const std::optional<std::int64_t>& v) {
  if (!v) return std::nullopt;
  return std::to_string(*v);
}

}  // namespace

std::string generate_key() { return std::string(kKeyPrefix) + crypto::base64url(crypto::random_bytes(32)); }

std::optional<Principal> find_key_by_hash(db::Db& db, const crypto::Sha256Digest& digest) {
  return db::read(db, [&](db::Tx& tx) -> std::optional<Principal> {
    pqxx::binarystring hash(digest.data(), digest.size());
    auto rows = db.exec(tx, kFindByHash, hash);
    if (rows.empty()) return std::nullopt;
    Principal p = from_row(rows[0]);
    if (!p.limits.tokens.quota) p.description_utc = key_json(p, TimeZone::utc(), 0);
    return p;
  });
}

CreatedKey create_key(db::Db& db, const NewKey& request) {
  CreatedKey created;
  created.plaintext = generate_key();
  auto digest = crypto::sha256(created.plaintext);
  return db::transact(db, [&](db::Tx& tx) {
    auto user = tx.exec_params("SELECT 1 FROM users WHERE id = $1", request.user.value);
    db.count();
    if (user.empty()) throw std::invalid_argument("no user with id " + std::to_string(request.user.value));
    const auto& l = request.limits;
    std::optional<std::string> expires;
    if (request.expires_at) expires = TimeZone::utc().format(*request.expires_at);
    pqxx::binarystring hash(digest.data(), digest.size());
    auto rows = tx.exec_params(
        "WITH k AS (INSERT INTO api_keys (user_id, name, key_hash, key_prefix, scopes,"
        " rate_per_minute, rate_per_hour, rate_per_day, tokens_per_minute, tokens_per_hour,"
        " tokens_per_day, tokens_per_month, tokens_quota_limit, expires_at, ai_monthly_limit_minor)"
        " VALUES ($1, $2, $3, $4, $5::text[], $6, $7, $8, $9, $10, $11, $12, $13, $14::timestamptz, $15)"
        " RETURNING *) SELECT " MG_KEY_COLUMNS " FROM k JOIN users u ON u.id = k.user_id",
        request.user.value, request.name, hash, created.plaintext.substr(0, 8),
        db::text_array(request.scopes.names()), opt_str(l.requests.per_minute), opt_str(l.requests.per_hour),
        opt_str(l.requests.per_day), opt_str(l.tokens.per_minute), opt_str(l.tokens.per_hour),
        opt_str(l.tokens.per_day), opt_str(l.tokens.per_month), opt_str(l.tokens.quota), expires,
        opt_str(l.ai_monthly_limit_minor));
    db.count();
    created.key = from_row(rows[0]);
    return created;
  });
}

std::optional<Principal> disable_key(db::Db& db, ApiKeyId id) {
  return db::transact(db, [&](db::Tx& tx) -> std::optional<Principal> {
    auto rows = tx.exec_params(
        "WITH k AS (UPDATE api_keys SET disabled_at = COALESCE(disabled_at, now()), updated_at = now()"
        " WHERE id = $1 RETURNING *) SELECT " MG_KEY_COLUMNS " FROM k JOIN users u ON u.id = k.user_id",
        id.value);
    db.count();
    if (rows.empty()) return std::nullopt;
    return from_row(rows[0]);
  });
}

std::int64_t token_quota_used(db::Db& db, ApiKeyId id) {
  static const db::Statement kUsed{"auth_token_quota_used", "SELECT tokens_quota_used FROM api_keys WHERE id = $1"};
  return db::read(db, [&](db::Tx& tx) -> std::int64_t {
    auto rows = db.exec(tx, kUsed, id.value);
    return rows.empty() ? 0 : rows[0][0].as<std::int64_t>();
  });
}

}  // namespace mediagen::auth
