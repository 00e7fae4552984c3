#pragma once
// The SQL of the policy cooldown (policy_cooldown.hpp): one row per user in policy_cooldowns and
// the order's policy_flagged_at mark. Every function runs inside the caller's transaction; the
// settling ones after the order row is locked (the queue's lock order: items, order, ledger,
// then the user's cooldown row).
#include <cstdint>
#include <string_view>

#include "mediagen/core/clock.hpp"
#include "mediagen/core/ids.hpp"
#include "mediagen/db/db.hpp"

namespace mediagen::orders {

// (Until when the user may not create orders is read with order creation's context,
// order_write_store.hpp.)

// Marks the (locked) order as policy-blocked at `now`; true only the first time.
bool mark_order_policy_flagged(db::Db& db, db::Tx& tx, std::string_view order_id, TimePoint now);

// One more consecutive policy-blocked order; returns the streak and the cooldowns given so far.
struct Streak {
  std::int64_t streak = 0;
  std::int64_t step = 0;
};
Streak add_to_streak(db::Db& db, db::Tx& tx, UserId user);

// A cooldown until `until` (never shortening one still running): the streak starts again and
// the step becomes `next_step`.
void start_cooldown(db::Db& db, db::Tx& tx, UserId user, TimePoint until, std::int64_t next_step);

// A clean completion: streak and step back to zero (a running cooldown stays).
void reset_streak(db::Db& db, db::Tx& tx, UserId user);

}  // namespace mediagen::orders
