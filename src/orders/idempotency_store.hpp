#pragma once
// Idempotency-Key on the operations that charge (beyond the spec, because charging is
// automatic and clients time out). Inside the operation's own transaction:
//   claim() inserts (user, key) first. A concurrent duplicate blocks on that row until the
//   first transaction ends; if it committed, the duplicate sees the stored answer and replays
//   it; if it rolled back (a refusal), the duplicate runs as a new request.
//   remember() stores the answer in the same transaction as the order it describes, so the
//   answer exists exactly when the order does. Keys live 24 hours.
#include <optional>
#include <string>
#include <string_view>

#include "mediagen/core/api_error.hpp"
#include "mediagen/core/ids.hpp"
#include "mediagen/db/db.hpp"
#include "mediagen/orders/orders.hpp"

namespace mediagen::orders {

// nullopt: the key is new and now held by this transaction. A reply: replay it. An error:
// the key was used with another request (409 idempotency_key_reused) or another operation.
Result<std::optional<OperationReply>> claim_idempotency_key(db::Db& db, db::Tx& tx, UserId user,
                                                            std::string_view scope, const IdempotencyKey& key);

void remember_reply(db::Db& db, db::Tx& tx, UserId user, const IdempotencyKey& key, const OperationReply& reply);

// Outside any transaction, before anything else: the stored answer of a finished request with
// this key, so a replay answers even when the template has since been deleted or the balance
// spent (the claim inside the transaction settles races). nullopt: no finished answer.
std::optional<Result<OperationReply>> stored_reply(db::Db& db, UserId user, std::string_view scope,
                                                   const IdempotencyKey& key);

}  // namespace mediagen::orders
