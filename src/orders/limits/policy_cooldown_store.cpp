// The SQL of the policy cooldown (see policy_cooldown_store.hpp).
#include "policy_cooldown_store.hpp"

#include "mediagen/db/pg.hpp"

namespace mediagen::orders {
namespace {

std::int64_t micros(TimePoint t) {
  return std::chrono::duration_cast<std::chrono::microseconds>(t.time_since_epoch()).count();
}

// Times travel as epoch microseconds (exact, unlike to_timestamp's double). blocked_until is read
// with the rest of order creation's context (order_write_store.cpp).
const db::Statement kMarkOrder{
    "cooldown_mark_order",
    "UPDATE orders SET policy_flagged_at = timestamptz 'epoch' + $2::bigint * interval '1 microsecond'"
    " WHERE id = $1::uuid AND policy_flagged_at IS NULL"};
const db::Statement kAddToStreak{
    "cooldown_add_to_streak",
    "INSERT INTO policy_cooldowns AS c (user_id, streak) VALUES ($1, 1)"
    " ON CONFLICT (user_id) DO UPDATE SET streak = c.streak + 1, updated_at = now()"
    " RETURNING streak, step"};
const db::Statement kStartCooldown{
    "cooldown_start",
    "UPDATE policy_cooldowns SET streak = 0, step = $3,"
    "  blocked_until = GREATEST(blocked_until, timestamptz 'epoch' + $2::bigint * interval '1 microsecond'),"
    "  updated_at = now()"
    " WHERE user_id = $1"};
const db::Statement kResetStreak{
    "cooldown_reset_streak",
    "UPDATE policy_cooldowns SET streak = 0, step = 0, updated_at = now()"
    " WHERE user_id = $1 AND (streak <> 0 OR step <> 0)"};

}  // namespace

bool mark_order_policy_flagged(db::Db& db, db::Tx& tx, std::string_view order_id, TimePoint now) {
  return db.exec(tx, kMarkOrder, std::string(order_id), micros(now)).affected_rows() == 1;
}

Streak add_to_streak(db::Db& db, db::Tx& tx, UserId user) {
  const auto r = db.exec(tx, kAddToStreak, user.value);
  return {.streak = r[0][0].as<std::int64_t>(), .step = r[0][1].as<std::int64_t>()};
}

void start_cooldown(db::Db& db, db::Tx& tx, UserId user, TimePoint until, std::int64_t next_step) {
  db.exec(tx, kStartCooldown, user.value, micros(until), next_step);
}

void reset_streak(db::Db& db, db::Tx& tx, UserId user) { db.exec(tx, kResetStreak, user.value); }

}  // namespace mediagen::orders
