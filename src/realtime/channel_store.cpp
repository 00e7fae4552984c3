#include "channel_store.hpp"

#include <string>

#include "mediagen/db/pg.hpp"

namespace mediagen::realtime {
namespace {

// The primary key finds the row; the owner is part of the match, so another account's order
// and a missing one give the same empty answer.
const db::Statement kOwnsOrder{"realtime_owns_order",
                               "SELECT 1 FROM orders WHERE id = $1::uuid AND user_id = $2"};

}  // namespace

bool owns_order(db::Db& db, UserId user, const OrderId& order_id) {
  return db::read(db, [&](db::Tx& tx) {
    return !db.exec(tx, kOwnsOrder, order_id.str(), user.value).empty();
  });
}

}  // namespace mediagen::realtime
