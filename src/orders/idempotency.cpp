#include "idempotency.hpp"

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
const db::Statement kRemember{
    "idempotency_remember", "UPDATE idempotency_keys SET status = $3, body = $4 WHERE user_id = $1 AND key = $2"};

}  // namespace

std::optional<std::string> valid_idempotency_key(std::string_view header) noexcept {
  if (header.empty() || header.size() > 255) return std::nullopt;
  for (const char c : header) {
    if (c < 0x21 || c > 0x7e) return std::nullopt;
  }
  return std::string(header);
}

Result<std::optional<OperationReply>> claim_idempotency_key(db::Db& db, pqxx::work& tx, UserId user,
                                                            std::string_view scope, const IdempotencyKey& key) {
  if (!db.exec(tx, kClaim, user.value, key.key, std::string(scope), key.request_hash).empty()) {
    return std::optional<OperationReply>{};
  }
  auto rows = db.exec(tx, kStored, user.value, key.key);
  if (rows.empty()) return std::optional<OperationReply>{};  // cannot happen: the row blocked us
  const auto& r = rows[0];
  if (r[0].as<std::string>() != scope || r[1].as<std::string>() != key.request_hash || r[2].as<int>() == 0) {
    return ApiError::refusal(409, Reason::idempotency_key_reused);
  }
  return std::optional<OperationReply>{OperationReply{.status = r[2].as<int>(), .data_json = r[3].as<std::string>(), .replayed = true}};
}

void remember_reply(db::Db& db, pqxx::work& tx, UserId user, const IdempotencyKey& key, const OperationReply& reply) {
  db.exec(tx, kRemember, user.value, key.key, reply.status, reply.data_json);
}

}  // namespace mediagen::orders
