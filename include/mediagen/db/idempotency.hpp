#pragma once
// The store of Idempotency-Key answers, shared by every operation that takes the header (orders,
// gift codes, clones). Inside the operation's own transaction:
//   claim_idempotency_key() inserts (user, key) first. A concurrent duplicate blocks on that row
//   until the first transaction ends; if it committed, the duplicate sees the stored answer and
//   replays it; if it rolled back (a refusal), the duplicate runs as a new request.
//   remember_answer() stores the answer in the same transaction as the write it describes, so
//   the answer exists exactly when the write does. Keys belong to the account, with the
//   operation (`scope`) they were first used for, and live 24 hours.
#include <optional>
#include <string>
#include <string_view>

#include "mediagen/core/api_error.hpp"
#include "mediagen/core/idempotency_key.hpp"
#include "mediagen/core/ids.hpp"
#include "mediagen/db/db.hpp"

namespace mediagen::db {

// The first answer given under a key: its HTTP status and the `data` it carried, kept as the
// operation chose to keep it (byte for byte, or sealed).
struct StoredAnswer {
  int status = 200;
  std::string body;
};

// nullopt: the key is new and now held by this transaction. An answer: replay it. An error:
// the key was used with another request or another operation (409 idempotency_key_reused).
Result<std::optional<StoredAnswer>> claim_idempotency_key(Db& db, Tx& tx, UserId user, std::string_view scope,
                                                          const IdempotencyKey& key);

void remember_answer(Db& db, Tx& tx, UserId user, const IdempotencyKey& key, const StoredAnswer& answer);

// Outside any transaction, before anything else: the stored answer of a finished request with
// this key, so a replay answers even when what it needed has since changed (the claim inside
// the transaction settles races). nullopt: no finished answer.
std::optional<Result<StoredAnswer>> stored_answer(Db& db, UserId user, std::string_view scope, const IdempotencyKey& key);

}  // namespace mediagen::db
