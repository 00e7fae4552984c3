#pragma once
// The SQL of order creation (order_create_service.cpp): what the creating transaction reads and
// locks, and the order and its chunks in two statements. Every function but find_prompt_service
// runs inside the caller's transaction.
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "mediagen/core/clock.hpp"
#include "mediagen/core/ids.hpp"
#include "mediagen/db/db.hpp"
#include "order_create_service.hpp"
#include "order_pricing.hpp"

namespace mediagen::orders {

// Assets, the switches, the policy cooldown and the live subscription as it bears on an order of
// `service`, in one round trip.
struct CreateContext {
  AssetId money;
  AssetId tokens;
  bool maintenance = false;
  bool subscribed = false;
  std::optional<std::int64_t> slots;        // the plan's concurrency slots; none: unlimited
  bool entitled = false;                    // the plan's quota may pay for this service
  std::optional<std::int64_t> usage_limit;  // the plan's ceiling on this service per period
  std::int64_t period_start_us = 0;         // the live subscription's start (epoch microseconds)
  bool payg_enabled = true;                 // the balance may pay what the quota does not
  bool confirm_mode = false;                // spec 7.1's fallback: a top-up needs a confirmed quote
  std::string currency;                     // the default asset's code
  std::optional<TimePoint> blocked_until;   // the user's policy cooldown, when one was ever given
};
CreateContext read_create_context(db::Db& db, db::Tx& tx, UserId user, const std::string& service);

// Tokens the user's orders on `service` charged or still hold locked since `since_us`.
std::int64_t service_usage_since(db::Db& db, db::Tx& tx, UserId user, const std::string& service,
                                 std::int64_t since_us);

// Whether `tokens` more on `service` would pass the live plan's ceiling on it this period.
inline bool exceeds_service_ceiling(db::Db& db, db::Tx& tx, UserId user, const CreateContext& ctx,
                                   const std::string& service, std::int64_t tokens) {
  return ctx.usage_limit && service_usage_since(db, tx, user, service, ctx.period_start_us) + tokens > *ctx.usage_limit;
}

// Locks the user's row (serialising one user's creations while slots are counted) and counts
// the orders still active.
std::int64_t lock_user_and_count_active(db::Db& db, db::Tx& tx, UserId user);

// The subscription quota left, its ledger row locked so concurrent orders split it exactly.
std::int64_t lock_subscription_quota(db::Db& db, db::Tx& tx, UserId user, AssetId tokens);

// The order row and every chunk (one statement each, never one per chunk); returns created_at.
struct OrderInsert {
  const std::string& order_id;
  UserId user;
  ApiKeyId key;
  const NewOrder& order;
  AssetId money;
  const OrderPrice& price;
  const std::vector<std::int64_t>& chunk_tokens;
};
TimePoint insert_order_and_chunks(db::Db& db, db::Tx& tx, const OrderInsert& insert);

// Records the nonce of a confirmed top-up quote against the order it pays for; false when the
// quote was spent before (by this order's lost attempt, the caller checks order_exists first).
bool spend_quote(db::Db& db, db::Tx& tx, std::string_view nonce, UserId user, std::string_view order_id);

// Whether the order row is there: after a lost COMMIT, tells whether the create was kept.
bool order_exists(db::Db& db, db::Tx& tx, std::string_view order_id);

// A template-less service (sfx, music): its first active model and its engine.
struct PromptService {
  std::string service_key;
  std::string model_id;
  std::int64_t price_per_1k_minor = 0;
  std::string engine;
  std::string upstream_json;  // services.upstream; empty for the embedded engines
};
std::optional<PromptService> find_prompt_service(db::Db& db, const std::string& task_type);

}  // namespace mediagen::orders
