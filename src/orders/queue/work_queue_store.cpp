// The queue side of the work queue: claiming, leases, requeueing, the stitch's inputs.
// Completion, failure and settling are in work_settle_store.cpp; stitch hand-outs and failures in
// work_stitch_store.cpp.
#include "mediagen/orders/queue.hpp"

#include <set>

#include "mediagen/core/uuid.hpp"
#include "mediagen/db/pg.hpp"
#include "work_store.hpp"

namespace mediagen::orders {
namespace {

const db::Statement kClaim{"work_claim", detail::kClaimSql};

// No updated_at: a heartbeat is not a change of the chunk.
const db::Statement kHeartbeat{
    "work_heartbeat",
    "UPDATE order_items SET locked_until = now() + $3::bigint * interval '1 millisecond'"
    " WHERE id = $1::uuid AND lease_token = $2::uuid AND status = 'processing'"};

const db::Statement kExpiredLeases{
    "work_expired_leases",
    "SELECT id::text, lease_token::text, claims FROM order_items"
    " WHERE status = 'processing' AND locked_until < now() ORDER BY locked_until LIMIT $1"};

// Fenced by the token and by the expiry itself: a heartbeat that landed since the scan wins.
const db::Statement kRequeueExpired{
    "work_requeue_expired",
    "UPDATE order_items SET status = 'pending', lease_token = NULL, locked_until = NULL, updated_at = now()"
    " WHERE id = $1::uuid AND lease_token = $2::uuid AND status = 'processing' AND locked_until < now()"
    " RETURNING order_id::text"};

// A drain is not the chunk's fault, so it gives back the claim it took.
const db::Statement kReleaseOwn{
    "work_release_own",
    "UPDATE order_items SET status = 'pending', lease_token = NULL, locked_until = NULL,"
    "  claims = GREATEST(claims - 1, 0), updated_at = now()"
    " WHERE lease_token = ANY($1::uuid[]) AND status = 'processing'"
    " RETURNING id::text, order_id::text"};

const db::Statement kPositionCount{
    "work_position_count",
    "SELECT (SELECT count(*) FROM order_items WHERE order_id = $1::uuid AND item_type = 'chunk'),"
    "  o.task_type, o.engine_request->>'output_format'"
    " FROM (SELECT 1) one LEFT JOIN orders o ON o.id = $1::uuid"};

// Per position the newest completed record of any type: a completed regeneration replaces the
// audio of the attempt before it.
const db::Statement kStitchParts{
    "work_stitch_parts",
    "SELECT DISTINCT ON (i.chunk_index) i.id::text, i.chunk_index, t.text, i.result_path, i.duration_ms,"
    "  COALESCE(i.timings::text, '[]')"
    " FROM order_items i LEFT JOIN order_item_texts t ON t.item_id = i.id"
    " WHERE i.order_id = $1::uuid AND i.status = 'completed' AND i.result_path IS NOT NULL"
    " ORDER BY i.chunk_index, i.created_at DESC, i.attempt_number DESC, i.id DESC"};


// The latest record of each position next to $2 (its text may have been replaced by a retry).
const db::Statement kNeighbours{
    "work_neighbours",
    "SELECT DISTINCT ON (i.chunk_index) i.chunk_index, t.text"
    " FROM order_items i JOIN order_item_texts t ON t.item_id = i.id"
    " WHERE i.order_id = $1::uuid AND i.chunk_index IN ($2 - 1, $2 + 1)"
    " ORDER BY i.chunk_index, i.created_at DESC, i.attempt_number DESC, i.id DESC"};

// Orders that lost their last claimed chunk go back to pending. Workers are woken after the
// commit by the caller (WorkerPool), not here.
void after_requeue(db::Db& db, db::Tx& tx, const std::set<std::string>& orders,
                   std::vector<OrderChange>& changes) {
  if (!orders.empty()) {
    auto back = db.exec(tx, detail::kOrdersBackToPending, db::text_array({orders.begin(), orders.end()}));
    for (const auto& row : back) {
      const auto id = row[0].as<std::string>();
      changes.push_back({OrderChange::Subject::order, id, id, to_string(OrderStatus::pending)});
    }
  }
}

}  // namespace

WorkQueue::WorkQueue(db::Db& db, QueueOptions options) : db_(db), options_(options) {}

std::optional<ClaimedChunk> WorkQueue::claim(std::chrono::milliseconds lease) {
  const LeaseToken token = LeaseToken::fresh();
  return db::autocommit(db_, [&](db::Tx& tx) -> std::optional<ClaimedChunk> {
    auto picked = db_.exec(tx, kClaim, token.str(), detail::millis(lease));
    if (picked.empty()) return std::nullopt;
    const auto& row = picked[0];
    ClaimedChunk c{.item_id = ItemId::of_row(row[0].as<std::string>()),
                   .order_id = OrderId::of_row(row[1].as<std::string>()),
                   .lease_token = token};
    if (!row[2].is_null()) c.text = row[2].as<std::string>();
    c.chunk_index = row[3].as<int>();
    c.item_type = row[4].as<std::string>();
    c.user_id = UserId{row[5].as<std::int64_t>()};
    c.task_type = parse_task_type(row[6].c_str()).value_or(TaskType::tts);  // the column is the enum
    c.engine_request_json = row[7].as<std::string>();
    const std::string& item = c.item_id.str();
    const std::string& order_id = c.order_id.str();
    c.changes.push_back({OrderChange::Subject::item, item, order_id, to_string(ItemStatus::processing)});
    if (row[8].as<bool>()) {  // this claim moved the order to in_progress
      c.changes.push_back({OrderChange::Subject::order, order_id, order_id, to_string(OrderStatus::in_progress)});
    }
    return c;
  });
}

bool WorkQueue::heartbeat(const ItemId& item_id, const LeaseToken& token, std::chrono::milliseconds lease) {
  return db::transact(db_, [&](db::Tx& tx) {
    return db_.exec(tx, kHeartbeat, item_id.str(), token.str(), detail::millis(lease)).affected_rows() == 1;
  });
}

SweepReport WorkQueue::release_expired_leases(int batch) {
  SweepReport report;
  auto expired = db::read(db_, [&](db::Tx& tx) { return db_.exec(tx, kExpiredLeases, batch); });
  for (const auto& row : expired) {
    const auto item = row[0].as<std::string>();
    const auto token = row[1].as<std::string>();
    if (row[2].as<int>() >= kMaxClaims) {
      auto settled = db::transact(db_, [&](db::Tx& tx) {
        return detail::fail_item(db_, tx, item, token, FailureKind::technical, "lease_expired", true, options_);
      });
      if (!settled.applied) continue;
      ++report.failed;
      report.changes.insert(report.changes.end(), settled.changes.begin(), settled.changes.end());
      continue;
    }
    db::transact(db_, [&](db::Tx& tx) {
      auto rows = db_.exec(tx, kRequeueExpired, item, token);
      if (rows.empty()) return;
      ++report.requeued;
      const auto order = rows[0][0].as<std::string>();
      report.changes.push_back({OrderChange::Subject::item, item, order, to_string(ItemStatus::pending)});
      after_requeue(db_, tx, {order}, report.changes);
    });
  }
  return report;
}

int WorkQueue::release_own(std::span<const LeaseToken> lease_tokens, std::vector<OrderChange>* changes) {
  std::vector<std::string> tokens;
  for (const auto& t : lease_tokens) tokens.push_back(t.str());
  if (tokens.empty()) return 0;
  return db::transact(db_, [&](db::Tx& tx) {
    auto rows = db_.exec(tx, kReleaseOwn, db::text_array(tokens));
    std::set<std::string> orders;
    std::vector<OrderChange> made;
    for (const auto& row : rows) {
      orders.insert(row[1].as<std::string>());
      made.push_back({OrderChange::Subject::item, row[0].as<std::string>(), row[1].as<std::string>(),
                      to_string(ItemStatus::pending)});
    }
    if (!rows.empty()) after_requeue(db_, tx, orders, made);
    if (changes) changes->insert(changes->end(), made.begin(), made.end());
    return static_cast<int>(rows.size());
  });
}

StitchInputs WorkQueue::stitch_inputs(const OrderId& order_id) {
  // One snapshot for both reads.
  return db::transact(db_, [&](db::Tx& tx) {
    StitchInputs in;
    const std::string& id = order_id.str();
    const auto counted = db_.exec(tx, kPositionCount, id);
    in.positions = counted[0][0].as<int>();
    if (!counted[0][1].is_null()) in.task_type = parse_task_type(counted[0][1].c_str()).value_or(TaskType::tts);
    if (!counted[0][2].is_null()) in.output_format = counted[0][2].as<std::string>();
    for (const auto& row : db_.exec(tx, kStitchParts, id)) {
      StitchPart p;
      p.item_id = row[0].as<std::string>();
      p.chunk_index = row[1].as<int>();
      if (!row[2].is_null()) p.text = row[2].as<std::string>();
      p.result_path = row[3].as<std::string>();
      if (!row[4].is_null()) p.duration_ms = row[4].as<std::int64_t>();
      p.timings_json = row[5].as<std::string>();
      in.parts.push_back(std::move(p));
    }
    return in;
  });
}

ChunkNeighbours WorkQueue::neighbours(const OrderId& order_id, int chunk_index) {
  return db::transact(db_, [&](db::Tx& tx) {
    ChunkNeighbours around;
    for (const auto& row : db_.exec(tx, kNeighbours, order_id.str(), chunk_index)) {
      if (row[1].is_null()) continue;
      (row[0].as<int>() < chunk_index ? around.previous : around.next) = row[1].as<std::string>();
    }
    return around;
  });
}

}  // namespace mediagen::orders
