#include "idempotency_store.hpp"
#include "mediagen/db/pg.hpp"

namespace mediagen::orders {
namespace {

// A key older than 24 hours is taken over as new.
const db::Statement kClaim{
    "idempotency_claim",
    "INSERT INTO idempotency_keys (user_id, key, scope, request_hash, status, body)"
    " VALUES ($1, $2, $3, decode($4, 'hex'), 0, '')"
    " ON CONFLICT (user_id, key) DO UPDATE SET scope = EXCLUDED.scope, request_hash = EXCLUDED.request_hash,"
    "  status = 0, body = '', created_at = now()"
    " WHERE idempotency_keys.created_at < now() - interval '24 hours'"
    " RETURNING 1"};
const db::Statement kStored{
    "idempotency_stored",
    "SELECT scope, encode(request_hash, 'hex'), status, body FROM idempotency_keys WHERE user_id = $1 AND key = $2"};
// A finished answer younger than 24 hours (status 0: its transaction has not committed yet).
const db::Statement kStoredReply{
    "orders_idempotent_reply",
    "SELECT scope, encode(request_hash, 'hex'), status, body FROM idempotency_keys"
    " WHERE user_id = $1 AND key = $2 AND status <> 0 AND created_at >= now() - interval '24 hours'"};
const db::Statement kRemember{
    "idempotency_remember", "UPDATE idempotency_keys SET status = $3, body = $4 WHERE user_id = $1 AND key = $2"};

// The stored column is the first answer's HTTP status (0 while its transaction is open), so a
// row written by an earlier release replays the same.
int stored_code(Outcome outcome) { return outcome == Outcome::work_queued ? 201 : 200; }

OperationReply replay(const pqxx::row& r) {
  return OperationReply{.outcome = r[2].as<int>() == 201 ? Outcome::work_queued : Outcome::changed,
                        .data_json = r[3].as<std::string>(),
                        .replayed = true};
}

}  // namespace

Result<std::optional<OperationReply>> claim_idempotency_key(db::Db& db, db::Tx& tx, UserId user,
                                                            std::string_view scope, const IdempotencyKey& key) {
  if (!db.exec(tx, kClaim, user.value, key.key, std::string(scope), key.request_hash).empty()) {
    return std::optional<OperationReply>{};
  }
  auto rows = db.exec(tx, kStored, user.value, key.key);
  if (rows.empty()) return std::optional<OperationReply>{};  // cannot happen: the row blocked us
  const auto& r = rows[0];
  if (r[0].as<std::string>() != scope || r[1].as<std::string>() != key.request_hash || r[2].as<int>() == 0) {
    return ApiError::refused(Reason::idempotency_key_reused);
  }
  return std::optional<OperationReply>{replay(r)};
}

void remember_reply(db::Db& db, db::Tx& tx, UserId user, const IdempotencyKey& key, const OperationReply& reply) {
  db.exec(tx, kRemember, user.value, key.key, stored_code(reply.outcome), reply.data_json);
}

std::optional<Result<OperationReply>> stored_reply(db::Db& db, UserId user, std::string_view scope,
                                                   const IdempotencyKey& key) {
  auto rows = db::read(db, [&](db::Tx& tx) { return db.exec(tx, kStoredReply, user.value, key.key); });
  if (rows.empty()) return std::nullopt;
  if (rows[0][0].as<std::string>() != scope || rows[0][1].as<std::string>() != key.request_hash) {
    return Result<OperationReply>(ApiError::refused(Reason::idempotency_key_reused));
  }
  return Result<OperationReply>(replay(rows[0]));
}

}  // namespace mediagen::orders
