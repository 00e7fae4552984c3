// Completion, failure and settling of the work queue (see work_queue.hpp), and the stitch's
// finish. Each public call is one transaction: item row first, then the order row, then money.
#include <nlohmann/json.hpp>
#include "mediagen/core/json_text.hpp"

#include "mediagen/core/uuid.hpp"
#include "mediagen/orders/order.hpp"
#include "mediagen/orders/queue.hpp"
#include "mediagen/orders/limits.hpp"
#include "work_store.hpp"

namespace mediagen::orders {
namespace {

// Fenced by the lease token: a worker whose chunk was rescued (and perhaps done by another)
// matches no row here and so writes nothing and is charged nothing.
const db::Statement kCompleteItem{
    "work_complete_item",
    "UPDATE order_items SET status = 'completed', result_path = $3, result_size = $4, duration_ms = $5,"
    "  timings = $6::jsonb, consumed_units = price_units, remaining_locked = 0, failure_reason = NULL,"
    "  lease_token = NULL, locked_until = NULL, updated_at = now()"
    " WHERE id = $1::uuid AND lease_token = $2::uuid AND status = 'processing'"
    " RETURNING order_id::text, payg_minor + surcharge_minor, quota_tokens + surcharge_quota_tokens"};

// The base lock stays behind a failed record for its next free retry; only the surcharge goes.
const db::Statement kFailItem{
    "work_fail_item",
    "UPDATE order_items SET status = $3, failure_reason = $4, lease_token = NULL, locked_until = NULL,"
    "  remaining_locked = GREATEST(price_units - surcharge_tokens, 0), updated_at = now()"
    " WHERE id = $1::uuid AND lease_token = $2::uuid AND status = 'processing'"
    "  AND (NOT $5::boolean OR locked_until < now())"
    " RETURNING order_id::text, surcharge_minor, surcharge_quota_tokens"};

// The last attempt of a position is its newest chunk|retry record; live counts every type, so a
// regeneration in flight also keeps the order from being decided.
const db::Statement kPositions{
    "work_positions",
    "SELECT (SELECT count(*) FROM order_items WHERE order_id = $1::uuid AND status IN ('pending', 'processing')),"
    "  count(*) FILTER (WHERE status = 'completed'), count(*)"
    " FROM (SELECT DISTINCT ON (chunk_index) status FROM order_items"
    "       WHERE order_id = $1::uuid AND item_type IN ('chunk', 'retry')"
    "       ORDER BY chunk_index, attempt_number DESC, created_at DESC) last"};

const db::Statement kOrderPartial{
    "work_order_partial",
    "UPDATE orders SET status = 'partially_completed', updated_at = now() WHERE id = $1::uuid"};

const db::Statement kOrderFailed{
    "work_order_failed",
    "UPDATE orders SET status = 'failed', terminal_at = now(), stitch_token = NULL, stitch_until = NULL,"
    "  updated_at = now() WHERE id = $1::uuid"};

const db::Statement kOrderStartStitch{
    "work_order_start_stitch",
    "UPDATE orders SET stitch_token = $2::uuid, stitch_until = now() + $3::bigint * interval '1 millisecond',"
    "  stitch_attempts = 1, updated_at = now() WHERE id = $1::uuid"};

// Fenced by the stitch token; an order cancelled, failed or compensated meanwhile stays so.
const db::Statement kFinishStitch{
    "work_finish_stitch",
    "UPDATE orders o SET status = CASE WHEN prev.status = 'result_delivered' THEN 'result_delivered' ELSE 'completed' END,"
    "  result_files = $3::jsonb, result_service_files = $4::jsonb, result_duration_ms = $5, result_data = $6::jsonb,"
    "  stitch_token = NULL, stitch_until = NULL, stitch_attempts = 0, stitched_at = now(), failure_reason = NULL,"
    "  terminal_at = COALESCE(o.terminal_at, now()), updated_at = now()"
    " FROM (SELECT id, status FROM orders WHERE id = $1::uuid FOR UPDATE) prev"
    " WHERE o.id = prev.id AND o.stitch_token = $2::uuid AND prev.status NOT IN ('failed', 'compensated', 'cancelled')"
    " RETURNING o.user_id, o.asset_id, o.status, (SELECT id FROM currency_assets WHERE kind = 'tokens'),"
    "  prev.status NOT IN ('completed', 'result_delivered') AND o.policy_flagged_at IS NULL"};

struct LockedOrder {
  OrderAccounts accounts;
  OrderStatus status;
};

LockedOrder lock_order(db::Db& db, db::Tx& tx, const std::string& order_id) {
  auto r = db.exec(tx, detail::kLockOrder, order_id);
  return {{.user = UserId{r[0][0].as<std::int64_t>()},
           .order_id = order_id,
           .money = AssetId{r[0][1].as<std::int64_t>()},
           .tokens = AssetId{r[0][3].as<std::int64_t>()}},
          *order_status_from_string(r[0][2].as<std::string>())};  // the column's CHECK lists the names
}

// One function per order transition, so the realtime hook has one place each.
void order_to_partially_completed(db::Db& db, db::Tx& tx, const LockedOrder& o, Settled& out) {
  db.exec(tx, kOrderPartial, o.accounts.order_id);
  if (o.status != OrderStatus::partially_completed) {
    out.changes.push_back({OrderChange::Subject::order, o.accounts.order_id, o.accounts.order_id,
                           to_string(OrderStatus::partially_completed)});
  }
}

void order_to_failed(db::Db& db, db::Tx& tx, const LockedOrder& o, Settled& out) {
  db.exec(tx, kOrderFailed, o.accounts.order_id);
  release_order(db, tx, o.accounts);
  out.changes.push_back(
      {OrderChange::Subject::order, o.accounts.order_id, o.accounts.order_id, to_string(OrderStatus::failed)});
}

void order_start_stitch(db::Db& db, db::Tx& tx, const LockedOrder& o, std::chrono::milliseconds lease,
                        Settled& out) {
  StitchJob job{OrderId::of_row(o.accounts.order_id), LeaseToken::fresh()};
  db.exec(tx, kOrderStartStitch, job.order_id.str(), job.token.str(), static_cast<std::int64_t>(lease.count()));
  out.stitch = std::move(job);
}

// Decides the order once its records are settled (order_status.hpp's settle()).
void settle_order(db::Db& db, db::Tx& tx, const LockedOrder& o, bool item_completed,
                  std::chrono::milliseconds lease, Settled& out) {
  if (is_closed(o.status)) return;  // no positions to read
  auto r = db.exec(tx, kPositions, o.accounts.order_id);
  const Positions positions{.live = r[0][0].as<std::int64_t>(),
                            .completed = r[0][1].as<std::int64_t>(),
                            .positions = r[0][2].as<std::int64_t>()};
  switch (settle(o.status, positions, item_completed)) {
    case Settlement::wait: return;
    case Settlement::stitch: return order_start_stitch(db, tx, o, lease, out);
    case Settlement::partially_completed: return order_to_partially_completed(db, tx, o, out);
    case Settlement::failed: return order_to_failed(db, tx, o, out);
  }
}

std::string json_array(const std::vector<std::string>& items) { return to_json_text(nlohmann::json(items)); }

}  // namespace

namespace detail {

Settled fail_item(db::Db& db, db::Tx& tx, std::string_view item_id, std::string_view token, FailureKind kind,
                  std::string_view reason, bool only_if_expired, const QueueOptions& options) {
  Settled out;
  const ItemStatus status = kind == FailureKind::policy ? ItemStatus::policy_flagged : ItemStatus::failed;
  auto rows = db.exec(tx, kFailItem, std::string(item_id), std::string(token), std::string(to_string(status)),
                      std::string(reason),
                      only_if_expired);
  if (rows.empty()) return out;
  out.applied = true;
  const auto order_id = rows[0][0].as<std::string>();
  out.changes.push_back({OrderChange::Subject::item, std::string(item_id), order_id, to_string(status)});
  const auto o = lock_order(db, tx, order_id);
  refund_item(db, tx, o.accounts, item_id,
                      {.quota_tokens = rows[0][2].as<std::int64_t>(), .minor = rows[0][1].as<std::int64_t>()});
  settle_order(db, tx, o, false, options.stitch_lease, out);
  if (kind == FailureKind::policy) note_policy_block(db, tx, o.accounts.user, order_id, options.cooldown);
  return out;
}

}  // namespace detail

Settled WorkQueue::complete(const ItemId& item, const LeaseToken& token, const ChunkOutput& output) {
  const std::string& item_id = item.str();
  return db::transact(db_, [&](db::Tx& tx) {
    Settled out;
    auto rows = db_.exec(tx, kCompleteItem, item_id, token.str(), output.result_path,
                         output.size, output.duration_ms, output.timings_json);
    if (rows.empty()) return out;
    out.applied = true;
    const auto order_id = rows[0][0].as<std::string>();
    out.changes.push_back({OrderChange::Subject::item, item_id, order_id, to_string(ItemStatus::completed)});
    const auto o = lock_order(db_, tx, order_id);
    charge_item(db_, tx, o.accounts, item_id,
                        {.quota_tokens = rows[0][2].as<std::int64_t>(), .minor = rows[0][1].as<std::int64_t>()});
    settle_order(db_, tx, o, true, options_.stitch_lease, out);
    return out;
  });
}

Settled WorkQueue::fail(const ItemId& item_id, const LeaseToken& token, FailureKind kind, std::string_view reason) {
  return db::transact(db_, [&](db::Tx& tx) {
    return detail::fail_item(db_, tx, item_id.str(), token.str(), kind, reason, false, options_);
  });
}

bool WorkQueue::finish_stitch(const StitchJob& job, const StitchedResult& result, std::vector<OrderChange>* changes) {
  const std::string& order_id = job.order_id.str();
  return db::transact(db_, [&](db::Tx& tx) {
    db_.exec(tx, detail::kLockLockedItems, order_id);
    auto rows = db_.exec(tx, kFinishStitch, order_id, job.token.str(), json_array(result.files),
                         json_array(result.service_files), result.duration_ms, result.data_json);
    if (rows.empty()) return false;
    const OrderAccounts accounts{.user = UserId{rows[0][0].as<std::int64_t>()},
                                 .order_id = order_id,
                                 .money = AssetId{rows[0][1].as<std::int64_t>()},
                                 .tokens = AssetId{rows[0][3].as<std::int64_t>()}};
    // A second stitch of a finished order (after a regeneration) releases under its own reference.
    release_order(db_, tx, accounts, order_id + ":" + job.token.str());
    // A first completion with nothing flagged; a re-stitch after a regeneration is not a new one.
    if (rows[0][4].as<bool>()) note_clean_completion(db_, tx, accounts.user);
    if (changes) {
      const auto status = *order_status_from_string(rows[0][2].as<std::string>());
      changes->push_back({OrderChange::Subject::order, order_id, order_id, to_string(status)});
    }
    return true;
  });
}

}  // namespace mediagen::orders
