#pragma once
// SQL behind the channel authorization.
#include <string_view>

#include "mediagen/core/ids.hpp"
#include "mediagen/core/uuid_id.hpp"
#include "mediagen/db/db.hpp"

namespace mediagen::realtime {

// True when the order exists and belongs to `user`. `order_id` must already be a uuid.
bool owns_order(db::Db& db, UserId user, const OrderId& order_id);

}  // namespace mediagen::realtime
