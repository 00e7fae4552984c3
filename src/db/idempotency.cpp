// The SQL of the Idempotency-Key store (idempotency.hpp).
#include "mediagen/db/idempotency.hpp"

#include "mediagen/db/pg.hpp"

namespace mediagen::db {
namespace {

// A key older than 24 hours is taken over as new.
const Statement kClaim{
    "idempotency_claim",
    "INSERT INTO idempotency_keys (user_id, key, scope, request_hash, status, body)"
    " VALUES ($1, $2, $3, decode($4, 'hex'), 0, '')"
    " ON CONFLICT (user_id, key) DO UPDATE SET scope = EXCLUDED.scope, request_hash = EXCLUDED.request_hash,"
    "  status = 0, body = '', created_at = now()"
    " WHERE idempotency_keys.created_at < now() - interval '24 hours'"
    " RETURNING 1"};
const Statement kStored{
    "idempotency_stored",
    "SELECT scope, encode(request_hash, 'hex'), status, body FROM idempotency_keys WHERE user_id = $1 AND key = $2"};
// A finished answer younger than 24 hours (status 0: its transaction has not committed yet).
const Statement kStoredReply{
    "orders_idempotent_reply",
    "SELECT scope, encode(request_hash, 'hex'), status, body FROM idempotency_keys"
    " WHERE user_id = $1 AND key = $2 AND status <> 0 AND created_at >= now() - interval '24 hours'"};
const Statement kRemember{
    "idempotency_remember", "UPDATE idempotency_keys SET status = $3, body = $4 WHERE user_id = $1 AND key = $2"};

bool same_request(const pqxx::row& r, std::string_view scope, const IdempotencyKey& key) {
  return r[0].as<std::string>() == scope && r[1].as<std::string>() == key.request_hash;
}

StoredAnswer answer_of(const pqxx::row& r) { return {.status = r[2].as<int>(), .body = r[3].as<std::string>()}; }

}  // namespace

Result<std::optional<StoredAnswer>> claim_idempotency_key(Db& db, Tx& tx, UserId user, std::string_view scope,
                                                          const IdempotencyKey& key) {
  if (!db.exec(tx, kClaim, user.value, key.key, std::string(scope), key.request_hash).empty()) {
    return std::optional<StoredAnswer>{};
  }
  auto rows = db.exec(tx, kStored, user.value, key.key);
  if (rows.empty()) return std::optional<StoredAnswer>{};  // cannot happen: the row blocked us
  const auto& r = rows[0];
  if (!same_request(r, scope, key) || r[2].as<int>() == 0) return ApiError::refused(Reason::idempotency_key_reused);
  return std::optional<StoredAnswer>{answer_of(r)};
}

void remember_answer(Db& db, Tx& tx, UserId user, const IdempotencyKey& key, const StoredAnswer& answer) {
  db.exec(tx, kRemember, user.value, key.key, answer.status, answer.body);
}

std::optional<Result<StoredAnswer>> stored_answer(Db& db, UserId user, std::string_view scope, const IdempotencyKey& key) {
  auto rows = read(db, [&](Tx& tx) { return db.exec(tx, kStoredReply, user.value, key.key); });
  if (rows.empty()) return std::nullopt;
  if (!same_request(rows[0], scope, key)) return Result<StoredAnswer>(ApiError::refused(Reason::idempotency_key_reused));
  return Result<StoredAnswer>(answer_of(rows[0]));
}

}  // namespace mediagen::db
