#pragma once
// Transactions as services use them, without libpqxx: `transact(db, fn)` runs fn(tx) in one
// transaction and commits it; `read(db, fn)` runs one statement's worth of work with no
// BEGIN/COMMIT around it (one round trip instead of three); `autocommit(db, fn)` the same for a
// single statement that writes.
//
// When fn returns a Result, a refusal (the error value) rolls the transaction back and is
// returned: refusals leave a transaction as values, never as exceptions. A broken connection or
// an in-doubt commit throws db::Unavailable (pg.hpp). A deadlock or a serialization failure rolls
// everything back and runs the whole of fn again (a few times), so fn must touch nothing but the
// database (and state it resets at its start).
//
// A lost COMMIT (the connection broke after COMMIT was sent: in doubt) is settled when the caller
// names how to recognise its write (`committed`, run on a fresh connection): written, the result
// stands; not written, fn runs again. Without it, or when PostgreSQL cannot be asked, it throws
// db::Unavailable. A caller that stopped waiting (Db::abandoned) gets a rollback, not a commit.
#include <functional>
#include <optional>
#include <type_traits>
#include <utility>

#include "mediagen/core/api_error.hpp"
#include "mediagen/db/db.hpp"

namespace mediagen::db {

// Runs body in a transaction: commits when it returns true, rolls back when it returns false.
// `committed` (may be empty) tells whether the last attempt's write is in the database.
using CommitCheck = std::function<bool(Tx&)>;
void run_transaction(Db& db, const std::function<bool(Tx&)>& body, const CommitCheck& committed = {});
// Runs body outside an explicit transaction.
void run_read(Db& db, const std::function<void(Tx&)>& body);

namespace detail {
template <class T>
struct is_result : std::false_type {};
template <class T>
struct is_result<Result<T>> : std::true_type {};
}  // namespace detail

template <class F>
auto transact(Db& db, F&& fn, const CommitCheck& committed = {}) {
  using R = std::invoke_result_t<F&, Tx&>;
  if constexpr (std::is_void_v<R>) {
    run_transaction(
        db,
        [&](Tx& tx) {
          fn(tx);
          return true;
        },
        committed);
  } else {
    std::optional<R> out;
    run_transaction(
        db,
        [&](Tx& tx) {
          out.reset();
          out.emplace(fn(tx));
          if constexpr (detail::is_result<R>::value) {
            return static_cast<bool>(*out);
          } else {
            return true;
          }
        },
        committed);
    return std::move(*out);
  }
}

template <class F>
auto read(Db& db, F&& fn) {
  using R = std::invoke_result_t<F&, Tx&>;
  if constexpr (std::is_void_v<R>) {
    run_read(db, [&](Tx& tx) { fn(tx); });
  } else {
    std::optional<R> out;
    run_read(db, [&](Tx& tx) { out.emplace(fn(tx)); });
    return std::move(*out);
  }
}

// One statement that writes, committed on its own (autocommit): one round trip instead of three.
// Only for a write that is one statement and whose loss in doubt is survivable as it is (a chunk
// claim: a lease nobody holds expires and the chunk is claimed again). Failures as read's.
template <class F>
auto autocommit(Db& db, F&& fn) {
  return read(db, std::forward<F>(fn));
}

}  // namespace mediagen::db
