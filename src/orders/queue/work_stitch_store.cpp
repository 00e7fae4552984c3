// The stitch's hand-outs and failures (see work_queue.hpp): retried a bounded number of times,
// then given up in one transaction with the money it moves. Item rows, then the order row, then
// ledger accounts, as everywhere in the queue.
#include "mediagen/core/uuid.hpp"
#include "mediagen/orders/order.hpp"
#include "mediagen/orders/queue.hpp"
#include "work_store.hpp"

namespace mediagen::orders {
namespace {

// A stitch lease left on an order that can no longer complete would be handed out forever.
const db::Statement kDropDeadStitches{
    "work_drop_dead_stitches",
    "UPDATE orders SET stitch_token = NULL, stitch_until = NULL"
    " WHERE stitch_until < now() AND status IN ('failed', 'compensated', 'cancelled')"};

// SKIP LOCKED and a fresh token: of several sweepers only one takes each stitch. Each hand-out
// is an attempt; a stitch that used its last one is left to give up instead.
const db::Statement kTakeExpiredStitches{
    "work_take_expired_stitches",
    "UPDATE orders o SET stitch_token = gen_random_uuid(),"
    "  stitch_until = now() + $1::bigint * interval '1 millisecond', stitch_attempts = o.stitch_attempts + 1"
    " FROM (SELECT id FROM orders WHERE stitch_until < now() AND stitch_attempts < $3 ORDER BY stitch_until"
    "       LIMIT $2 FOR UPDATE SKIP LOCKED) due"
    " WHERE o.id = due.id RETURNING o.id::text, o.stitch_token::text"};

// Through the partial index orders_stitch, like the hand-out.
const db::Statement kExhaustedStitches{
    "work_exhausted_stitches",
    "SELECT id::text, stitch_token::text FROM orders"
    " WHERE stitch_until < now() AND stitch_attempts >= $1 AND stitch_token IS NOT NULL"
    " ORDER BY stitch_until LIMIT $2"};

// Fenced by the stitch token (and, for the sweeper, by the lease having run out: a stitcher that
// renewed nothing but is still inside its lease is not overtaken).
const db::Statement kLockStitch{
    "work_lock_stitch",
    "SELECT o.user_id, o.asset_id, o.status, (SELECT id FROM currency_assets WHERE kind = 'tokens'),"
    "  o.stitch_attempts FROM orders o"
    " WHERE o.id = $1::uuid AND o.stitch_token = $2::uuid AND (NOT $3::boolean OR o.stitch_until < now())"
    " FOR UPDATE OF o"};

const db::Statement kStitchRetryLater{
    "work_stitch_retry_later",
    "UPDATE orders SET stitch_until = now() + $2::bigint * interval '1 millisecond' WHERE id = $1::uuid"};

// The charges no delivered result covers: for an order that never had a result every one of
// its records; for a finished order the ones posted after its result was built (terminal_at
// stands in for orders finished before stitched_at existed).
const db::Statement kChargesToReturn{
    "work_charges_to_return",
    "SELECT i.id::text, i.quota_tokens + i.surcharge_quota_tokens, i.payg_minor + i.surcharge_minor"
    " FROM order_items i JOIN orders o ON o.id = i.order_id"
    " JOIN ledger_txns t ON t.kind = 'chunk_charge' AND t.reference = i.id::text"
    " WHERE i.order_id = $1::uuid"
    "  AND t.created_at > COALESCE(o.stitched_at, o.terminal_at, '-infinity'::timestamptz)"
    " ORDER BY i.id"};

const db::Statement kStitchGaveUp{
    "work_stitch_gave_up",
    "UPDATE orders SET status = $2, failure_reason = $3, stitch_token = NULL, stitch_until = NULL,"
    "  terminal_at = COALESCE(terminal_at, now()), updated_at = now() WHERE id = $1::uuid"};


struct StitchHold {
  OrderAccounts accounts;
  OrderStatus status;
  int attempts = 0;
};

std::optional<StitchHold> lock_stitch(db::Db& db, db::Tx& tx, const StitchJob& job, bool only_if_expired) {
  db.exec(tx, detail::kLockLockedItems, job.order_id.str());
  auto r = db.exec(tx, kLockStitch, job.order_id.str(), job.token.str(), only_if_expired);
  if (r.empty()) return std::nullopt;
  return StitchHold{{.user = UserId{r[0][0].as<std::int64_t>()},
                     .order_id = job.order_id.str(),
                     .money = AssetId{r[0][1].as<std::int64_t>()},
                     .tokens = AssetId{r[0][3].as<std::int64_t>()}},
                    *order_status_from_string(r[0][2].as<std::string>()),  // the column's CHECK lists the names
                    r[0][4].as<int>()};
}

// The order's stitch gives up: status by the state machine, charges without a result returned,
// the escrow's remainder released, the reason recorded.
void give_up(db::Db& db, db::Tx& tx, const StitchJob& job, const StitchHold& hold, std::vector<OrderChange>* changes) {
  for (const auto& row : db.exec(tx, kChargesToReturn, job.order_id.str())) {
    refund_charge(db, tx, hold.accounts, row[0].as<std::string>(),
                  {.quota_tokens = row[1].as<std::int64_t>(), .minor = row[2].as<std::int64_t>()});
  }
  const OrderStatus to = after_stitch_gave_up(hold.status);
  db.exec(tx, kStitchGaveUp, job.order_id.str(), std::string(to_string(to)),
          std::string(to_string(OrderFailure::stitch_failed)));
  // A finished order was released when its result was built: a later release has its own reference.
  release_order(db, tx, hold.accounts, job.order_id.str() + ":" + job.token.str());
  // Also when the status stays: the order's reason changed, and its event says so.
  if (changes) changes->push_back({OrderChange::Subject::order, job.order_id.str(), job.order_id.str(), to_string(to)});
}

}  // namespace

StitchFailed WorkQueue::fail_stitch(const StitchJob& job, std::vector<OrderChange>* changes) {
  std::vector<OrderChange> made;
  const auto outcome = db::transact(db_, [&](db::Tx& tx) {
    made.clear();
    const auto hold = lock_stitch(db_, tx, job, false);
    if (!hold) return StitchFailed::lost;
    if (hold->attempts < kMaxStitchAttempts) {
      db_.exec(tx, kStitchRetryLater, job.order_id.str(), detail::millis(options_.stitch_retry_delay));
      return StitchFailed::retry;
    }
    give_up(db_, tx, job, *hold, &made);
    return StitchFailed::gave_up;
  });
  if (changes) changes->insert(changes->end(), made.begin(), made.end());
  return outcome;
}

std::vector<StitchJob> WorkQueue::expired_stitches(int batch, std::vector<OrderChange>* changes) {
  auto [jobs, exhausted] = db::transact(db_, [&](db::Tx& tx) {
    db_.exec(tx, kDropDeadStitches);
    std::pair<std::vector<StitchJob>, std::vector<StitchJob>> out;
    for (const auto& row : db_.exec(tx, kTakeExpiredStitches, detail::millis(options_.stitch_lease), batch, kMaxStitchAttempts)) {
      out.first.push_back({OrderId::of_row(row[0].as<std::string>()), LeaseToken::of_row(row[1].as<std::string>())});
    }
    for (const auto& row : db_.exec(tx, kExhaustedStitches, kMaxStitchAttempts, batch)) {
      out.second.push_back({OrderId::of_row(row[0].as<std::string>()), LeaseToken::of_row(row[1].as<std::string>())});
    }
    return out;
  });
  // The last attempt's lease ran out (its stitcher died, or hangs): give up, one order at a time.
  for (const auto& job : exhausted) {
    std::vector<OrderChange> made;
    db::transact(db_, [&](db::Tx& tx) {
      made.clear();
      if (const auto hold = lock_stitch(db_, tx, job, true)) give_up(db_, tx, job, *hold, &made);
    });
    if (changes) changes->insert(changes->end(), made.begin(), made.end());
  }
  return jobs;
}

}  // namespace mediagen::orders
