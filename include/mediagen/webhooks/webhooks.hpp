#pragma once
// Webhooks (openapi: "Webhooks"; migrations/0021): Standard Webhooks signing, the account's
// secret, the per-order URL, account endpoints (the operator CLI's), and the delivery log.
// Messages are written by triggers in the transaction of the change; their data is the realtime
// event's payload, filled in after the commit (fill_order_event) or by the deliverer.
#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "mediagen/core/api_error.hpp"
#include "mediagen/core/clock.hpp"
#include "mediagen/core/ids.hpp"
#include "mediagen/db/db.hpp"

namespace mediagen::webhooks {

inline constexpr std::array<std::string_view, 5> kEventTypes{"order.updated", "order.item.updated",
                                                             "voice_clone.updated", "gift_code.updated",
                                                             "preview.ready"};
// What a per-order webhook may ask for, and what it gets when it does not say.
inline constexpr std::array<std::string_view, 2> kOrderEventTypes{"order.updated", "order.item.updated"};
inline constexpr std::string_view kDefaultOrderEvent = "order.updated";

// A message's state: waiting for an attempt (pending), answered 2xx (delivered), or given up
// (failed: the schedule ran out, 410, a disabled endpoint).
enum class MessageStatus { pending, delivered, failed };
std::string_view to_string(MessageStatus status);
std::optional<MessageStatus> parse_message_status(std::string_view text);

// ---- Standard Webhooks (standardwebhooks.com) ----

// "whsec_" + base64 of 32 random bytes.
std::string new_secret();
// The key bytes of a secret ("whsec_" + base64); nullopt when it is not one.
std::optional<std::string> secret_key(std::string_view secret);
// "v1,<base64 HMAC-SHA256 of '<id>.<timestamp>.<body>'>" under the secret's key.
std::string sign(std::string_view secret, std::string_view id, std::int64_t timestamp, std::string_view body);
// {"type": type, "timestamp": ISO 8601 of `at`, "data": data}; `data` is JSON text, used as is.
std::string message_body(std::string_view type, TimePoint at, std::string_view data);

// ---- the account's secret (per-order deliveries) ----

// GET /webhooks/secret: the account's secret, made on first use (concurrent first uses agree).
std::string account_secret(db::Db& db, UserId user);

// ---- per-order URLs ----

struct OrderWebhook {
  std::string url;
  std::vector<std::string> events;  // a non-empty subset of kOrderEventTypes
};

// The data of the oldest messages of (order, subject) still without one, after the commit that
// made them; a subject is the order's id (order.updated) or the item's (order.item.updated).
// True when some message took it.
bool fill_order_event(db::Db& db, std::string_view order_id, std::string_view subject_id, std::string_view data);

// The same SQL test the order events' bump asks in passing (one statement, no extra trip):
// whether an order has messages without data. `$1` is the order id.
#define MG_WEBHOOK_UNRENDERED_SQL \
  "EXISTS (SELECT 1 FROM webhook_messages wm WHERE wm.order_id = $1::uuid AND wm.payload IS NULL)"

// Messages of an event that has no row of its own to trigger them (preview.ready: a preview
// lives in Redis), with its data, to every enabled endpoint of the account that takes it.
void note_event(db::Db& db, UserId user, std::string_view type, std::string_view subject_id, std::string_view data);

// ---- the delivery log ----

struct Attempt {
  TimePoint at;
  std::optional<int> status_code;
  std::optional<std::string> error;
  std::int64_t duration_ms = 0;
};

struct MessageLog {
  std::string id;
  std::string type;
  MessageStatus status = MessageStatus::pending;
  std::optional<std::string> url;
  std::vector<Attempt> attempts;
  std::optional<TimePoint> next_attempt_at;
  TimePoint created_at;
};

// GET /orders/{order}/webhook-deliveries: the order's messages, oldest first (at most `limit`);
// nullopt when the order is not the user's (404 as for any order of another account).
std::optional<std::vector<MessageLog>> order_deliveries(db::Db& db, UserId user, std::string_view order_id,
                                                         std::size_t limit);

// ---- account endpoints (the operator CLI) ----

struct Endpoint {
  std::int64_t id = 0;
  UserId user{0};
  std::string url;
  std::vector<std::string> events;
  bool enabled = true;
  std::optional<std::string> disabled_reason;
  std::string secret;
  TimePoint created_at;
};

std::optional<Endpoint> add_endpoint(db::Db& db, UserId user, std::string_view url, const std::vector<std::string>& events);
std::vector<Endpoint> list_endpoints(db::Db& db, UserId user);
bool remove_endpoint(db::Db& db, std::int64_t id);
std::optional<Endpoint> set_endpoint_enabled(db::Db& db, std::int64_t id, bool enabled);
// A new secret; the old one keeps signing beside it for `overlap`.
std::optional<Endpoint> rotate_endpoint_secret(db::Db& db, std::int64_t id, std::chrono::seconds overlap);
// The endpoint's messages, newest first; `failed_only`: those that ended failed.
std::vector<MessageLog> endpoint_deliveries(db::Db& db, std::int64_t id, bool failed_only, std::size_t limit);
// A message (of any status) due again now, with its attempts kept; false when there is none.
bool redeliver(db::Db& db, std::string_view message_id);

}  // namespace mediagen::webhooks
