#pragma once
// Settling an order after one of its records finished (chunk_settle.cpp), shared by the worker's
// completion and failure and by the sweeper's "lease_expired" failure.
#include <chrono>
#include <string_view>

#include "mediagen/db/pg.hpp"
#include "mediagen/workers/chunk_queue.hpp"

namespace mediagen::workers::detail {

// Item -> failed/policy_flagged under the lease token (and, for the sweeper, only while the lease
// is expired), surcharge returned, order settled. applied=false when the fence did not hold.
Settled fail_item(db::Db& db, pqxx::work& tx, std::string_view item_id, std::string_view token, FailureKind kind,
                  std::string_view reason, bool only_if_expired, std::chrono::milliseconds stitch_lease);

// Runs fn(tx) in a transaction, again when PostgreSQL aborted it for a deadlock or a
// serialization failure (a rare lock cycle with another instance must not fail a chunk).
template <class F>
auto transact_retrying(db::Db& db, F&& fn) {
  for (int attempt = 1;; ++attempt) {
    try {
      return db::transact(db, fn);
    } catch (const pqxx::transaction_rollback&) {
      if (attempt >= 3) throw;
    }
  }
}

}  // namespace mediagen::workers::detail
