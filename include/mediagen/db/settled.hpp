#pragma once
// transact() for writes whose lost COMMIT must not become a 503 nor a second write:
// `transact_settled(db, fn)` reads the transaction id of the attempt just before its COMMIT
// (one round trip, only when fn's result commits), and when the COMMIT's answer is lost it asks
// PostgreSQL on a fresh connection what became of exactly that transaction (txid_status):
// committed, the answer stands as if the commit had been seen; aborted, fn runs again. A
// concurrent identical write by someone else is never taken for ours, since the question is
// about our own transaction, not about rows that look like ours. When the fate cannot be
// learnt in time, db::Unavailable as before.
#include <cstdint>
#include <optional>
#include <type_traits>
#include <utility>

#include "mediagen/db/transact.hpp"

namespace mediagen::db {

// The id of the open transaction (txid_current, assigned now if the transaction had none).
std::int64_t current_transaction_id(Db& db, Tx& tx);

// Whether the transaction committed. While PostgreSQL still has it in progress (its backend
// has not yet finished the COMMIT or noticed that the client is gone), asks again briefly;
// throws Unavailable when it stays undecided or is too old to be known.
bool transaction_committed(Db& db, Tx& tx, std::int64_t xid);

template <class F>
auto transact_settled(Db& db, F&& fn) {
  using R = std::invoke_result_t<F&, Tx&>;
  std::optional<std::int64_t> xid;  // the transaction of the attempt that reached its COMMIT
  const CommitCheck ours = [&](Tx& tx) { return xid && transaction_committed(db, tx, *xid); };
  if constexpr (std::is_void_v<R>) {
    transact(db, [&](Tx& tx) {
      xid.reset();
      fn(tx);
      xid = current_transaction_id(db, tx);
    }, ours);
  } else {
    return transact(db, [&](Tx& tx) -> R {
      xid.reset();
      R out = fn(tx);
      if constexpr (detail::is_result<R>::value) {
        if (!out) return out;  // a refusal rolls back: nothing to settle
      }
      xid = current_transaction_id(db, tx);
      return out;
    }, ours);
  }
}

}  // namespace mediagen::db
