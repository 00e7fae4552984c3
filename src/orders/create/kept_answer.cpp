// An Idempotency-Key's answer in the shared store (db/idempotency.hpp), for the order writes.
#include "mediagen/orders/create.hpp"

namespace mediagen::orders {

Result<KeyUse> KeptAnswer::finished(db::Db& db, std::string_view scope) {
  auto stored = db::stored_answer(db, user_, scope, key_);
  if (!stored) return KeyUse::first;
  if (!*stored) return stored->error();
  earlier_ = std::move(**stored);
  return KeyUse::repeated;
}

Result<KeyUse> KeptAnswer::claim(db::Db& db, db::Tx& tx, std::string_view scope) {
  auto claimed = db::claim_idempotency_key(db, tx, user_, scope, key_);
  if (!claimed) return claimed.error();
  if (!*claimed) return KeyUse::first;
  earlier_ = std::move(**claimed);
  return KeyUse::repeated;
}

void KeptAnswer::keep_answer(db::Db& db, db::Tx& tx, db::StoredAnswer answer) {
  db::remember_answer(db, tx, user_, key_, answer);
  kept_ = std::move(answer);
}

}  // namespace mediagen::orders
