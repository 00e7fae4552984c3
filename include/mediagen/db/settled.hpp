#pragma once
// transact() for writes whose lost COMMIT must not become a 503 nor a second write:
// `transact_settled(db, fn)` reads the transaction id of the attempt just before its COMMIT
// (one round trip, only when fn's result commits, and none when fn learnt it: KnownXid below), and when the COMMIT's answer is lost it asks
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

// What fn may learn on the way: the id of its own transaction, returned by one of its statements
// beside its own columns (txid_current() is the same for the whole transaction, whichever
// statement reads it). transact_settled then spends no round trip of its own on it.
struct KnownXid {
  std::optional<std::int64_t> value;
};

namespace detail {
// fn(tx) or fn(tx, known): the second form may fill `known`.
template <class F>
decltype(auto) call_settled(F& fn, Tx& tx, KnownXid& known) {
  if constexpr (std::is_invocable_v<F&, Tx&, KnownXid&>) {
    return fn(tx, known);
  } else {
    return fn(tx);
  }
}
template <class F, bool = std::is_invocable_v<F&, Tx&, KnownXid&>>
struct settled_result {
  using type = std::invoke_result_t<F&, Tx&, KnownXid&>;
};
template <class F>
struct settled_result<F, false> {
  using type = std::invoke_result_t<F&, Tx&>;
};
}  // namespace detail

template <class F>
auto transact_settled(Db& db, F&& fn) {
  using R = typename detail::settled_result<std::remove_reference_t<F>>::type;
  std::optional<std::int64_t> xid;  // the transaction of the attempt that reached its COMMIT
  const CommitCheck ours = [&](Tx& tx) { return xid && transaction_committed(db, tx, *xid); };
  if constexpr (std::is_void_v<R>) {
    transact(db, [&](Tx& tx) {
      xid.reset();
      KnownXid known;
      detail::call_settled(fn, tx, known);
      xid = known.value ? *known.value : current_transaction_id(db, tx);
    }, ours);
  } else {
    return transact(db, [&](Tx& tx) -> R {
      xid.reset();
      KnownXid known;
      R out = detail::call_settled(fn, tx, known);
      if constexpr (detail::is_result<R>::value) {
        if (!out) return out;  // a refusal rolls back: nothing to settle
      }
      xid = known.value ? *known.value : current_transaction_id(db, tx);
      return out;
    }, ours);
  }
}

}  // namespace mediagen::db
