// The policy cooldown's rules (see policy_cooldown.hpp); the SQL is in policy_cooldown_store.cpp.
#include "mediagen/orders/limits.hpp"

#include <algorithm>
#include <string>

#include "policy_cooldown_store.hpp"

namespace mediagen::orders {

Seconds PolicyCooldown::duration(std::int64_t step) const {
  const auto last = static_cast<std::int64_t>(ladder.size()) - 1;
  return ladder.at(static_cast<std::size_t>(std::clamp<std::int64_t>(step, 0, last)));
}

std::optional<ApiError> policy_cooldown_refusal(std::optional<TimePoint> blocked_until, TimePoint now) {
  if (!blocked_until || *blocked_until <= now) return std::nullopt;
  // Rounded up, so that a client waiting exactly this long is never refused again.
  const auto wait = std::chrono::ceil<Seconds>(*blocked_until - now);
  const TimePoint retry_at = std::chrono::ceil<Seconds>(*blocked_until);
  const std::int64_t retry_after = std::max<std::int64_t>(1, wait.count());
  ApiError e = ApiError::refused(Reason::policy_cooldown_active);
  e.with("retry_after", retry_after).with("retry_at", retry_at);
  e.headers.emplace_back("Retry-After", std::to_string(retry_after));
  return e;
}

void note_policy_block(db::Db& db, db::Tx& tx, UserId user, std::string_view order_id, const PolicyCooldown& cooldown) {
  if (cooldown.ladder.empty()) return;
  const TimePoint now = cooldown.now();
  if (!mark_order_policy_flagged(db, tx, order_id, now)) return;  // counted at its first flagged chunk
  const Streak s = add_to_streak(db, tx, user);
  if (s.streak < kPolicyStreak) return;
  // The step stops growing at the ladder's end: the last rung repeats.
  const auto next_step = std::min<std::int64_t>(s.step + 1, static_cast<std::int64_t>(cooldown.ladder.size()));
  start_cooldown(db, tx, user, now + cooldown.duration(s.step), next_step);
}

void note_clean_completion(db::Db& db, db::Tx& tx, UserId user) { reset_streak(db, tx, user); }

}  // namespace mediagen::orders
