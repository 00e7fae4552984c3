// The SQL of the order channel's events (see order_event_store.hpp).
#include "order_event_store.hpp"

#include "mediagen/db/pg.hpp"
#include "mediagen/webhooks/webhooks.hpp"
#include "order_row_store.hpp"

namespace mediagen::orders {
namespace {

// The bump takes the order row's lock, which every change of the order's status takes too, and
// RETURNING gives the row's newest version (PostgreSQL re-reads a row that changed while the
// UPDATE waited for it): the status sent is the one current when the seq was assigned.
// event_seq is in no index, so this is a HOT update; updated_at stays as it is.
const db::Statement kBumpOrder{
    "order_events_bump_order",
    "UPDATE orders SET event_seq = event_seq + 1 WHERE id = $1::uuid RETURNING event_seq, " MG_ORDER_COLUMNS
    ", " MG_WEBHOOK_UNRENDERED_SQL};

// An item's event: the bump (only when the item belongs to the order, so a bad note leaves no
// gap in the seqs), then, in the same transaction, the item read by a statement of its own.
// Its snapshot is taken while this transaction holds the order row's lock, so it is newer than
// the snapshot of every event of the order with a lower seq: item statuses never go back in
// seq order, even though an item's status can change without the order row's lock.
const db::Statement kBumpForItem{
    "order_events_bump_for_item",
    "UPDATE orders SET event_seq = event_seq + 1 WHERE id = $1::uuid"
    " AND EXISTS (SELECT 1 FROM order_items WHERE id = $2::uuid AND order_id = $1::uuid)"
    " RETURNING event_seq, " MG_WEBHOOK_UNRENDERED_SQL};
const db::Statement kItem{"order_events_item", "SELECT " MG_ITEM_COLUMNS " FROM order_items WHERE id = $1::uuid"};

const db::Statement kSnapshot{"order_events_snapshot",
                              "SELECT event_seq, " MG_ORDER_COLUMNS " FROM orders WHERE id = $1::uuid"};

// The session of the publisher's connection. synchronous_commit: see the header. lock_timeout:
// an order row held for long by a stuck transaction drops that order's change instead of
// holding up the events of every other order behind it.
constexpr const char* kSessionSetup = "SET synchronous_commit = off; SET lock_timeout = '5s'";

}  // namespace

std::optional<WithSeq<Order>> bump_order_seq(db::Db& db, const std::string& order_id) {
  const auto rows = db::read(db, [&](db::Tx& tx) { return db.exec(tx, kBumpOrder, order_id); });
  if (rows.empty()) return std::nullopt;
  return WithSeq<Order>{order_from_row(rows[0].slice(1, 1 + kOrderColumns)), rows[0][0].as<std::int64_t>(),
                        rows[0][1 + kOrderColumns].as<bool>()};
}

std::optional<WithSeq<Item>> bump_item_seq(db::Db& db, const std::string& order_id, const std::string& item_id) {
  return db::transact(db, [&](db::Tx& tx) -> std::optional<WithSeq<Item>> {
    const auto bumped = db.exec(tx, kBumpForItem, order_id, item_id);
    if (bumped.empty()) return std::nullopt;
    const auto rows = db.exec(tx, kItem, item_id);
    if (rows.empty()) return std::nullopt;  // cannot happen: items are never deleted
    return WithSeq<Item>{item_from_row(rows[0]), bumped[0][0].as<std::int64_t>(), bumped[0][1].as<bool>()};
  });
}

std::optional<WithSeq<Order>> read_order_seq(db::Db& db, const std::string& order_id) {
  const auto rows = db::read(db, [&](db::Tx& tx) { return db.exec(tx, kSnapshot, order_id); });
  if (rows.empty()) return std::nullopt;
  return WithSeq<Order>{order_from_row(rows[0].slice(1, 1 + kOrderColumns)), rows[0][0].as<std::int64_t>()};
}

void prepare_event_session(db::Db& db) {
  db::read(db, [&](db::Tx& tx) { db.exec_raw(tx, kSessionSetup); });
}

}  // namespace mediagen::orders
