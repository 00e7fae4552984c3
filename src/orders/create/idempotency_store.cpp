// Orders' answers in the shared Idempotency-Key store (db/idempotency.hpp).
#include "mediagen/orders/create.hpp"

#include "mediagen/db/idempotency.hpp"

namespace mediagen::orders {
namespace {

// The stored status is the first answer's HTTP status, so a row written by an earlier release
// replays the same.
int stored_code(Outcome outcome) { return outcome == Outcome::work_queued ? 201 : 200; }

mediagen::IdempotencyKey shared_key(const IdempotencyKey& key) { return {key.key, key.request_hash}; }

OperationReply replay(const db::StoredAnswer& a) {
  return OperationReply{.outcome = a.status == 201 ? Outcome::work_queued : Outcome::changed,
                        .data_json = a.body,
                        .replayed = true};
}

}  // namespace

Result<std::optional<OperationReply>> claim_idempotency_key(db::Db& db, db::Tx& tx, UserId user,
                                                            std::string_view scope, const IdempotencyKey& key) {
  auto claimed = db::claim_idempotency_key(db, tx, user, scope, shared_key(key));
  if (!claimed) return claimed.error();
  if (!*claimed) return std::optional<OperationReply>{};
  return std::optional<OperationReply>{replay(**claimed)};
}

void remember_reply(db::Db& db, db::Tx& tx, UserId user, const IdempotencyKey& key, const OperationReply& reply) {
  db::remember_answer(db, tx, user, shared_key(key), {.status = stored_code(reply.outcome), .body = reply.data_json});
}

std::optional<Result<OperationReply>> stored_reply(db::Db& db, UserId user, std::string_view scope,
                                                   const IdempotencyKey& key) {
  auto stored = db::stored_answer(db, user, scope, shared_key(key));
  if (!stored) return std::nullopt;
  if (!*stored) return Result<OperationReply>(stored->error());
  return Result<OperationReply>(replay(**stored));
}

}  // namespace mediagen::orders
