#pragma once
// The lock order of every transaction that changes an order: its live item rows first, then
// the order row, then ledger accounts (workers take an item row, then the order row, too).
#include <string>

#include "mediagen/db/pg.hpp"

namespace mediagen::orders {

inline const db::Statement kLockLiveItems{
    "orders_lock_live_items",
    "SELECT id FROM order_items WHERE order_id = $1 AND status IN ('pending', 'processing') ORDER BY id FOR UPDATE"};

inline void lock_live_items(db::Db& db, pqxx::work& tx, const std::string& order_id) {
  db.exec(tx, kLockLiveItems, order_id);
}

}  // namespace mediagen::orders
