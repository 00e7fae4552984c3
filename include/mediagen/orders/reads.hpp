#pragma once
// Reading orders and items (spec 2.3, 2.4, 4.1, 4.2): the owner's view. Every miss is the same
// 404 (malformed id, no such row, another account's order, an item of another order), so an
// id never tells whether it exists elsewhere. Items come with can_retry / can_regenerate
// computed by the same rules the retry and regenerate operations enforce.
// The functions on db::Db run blocking SQL: call them inside BlockingPool::run. Those on
// db::AsyncPg are the same reads from the I/O threads, for the GET routes.
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <boost/asio/awaitable.hpp>

#include "mediagen/core/api_error.hpp"
#include "mediagen/core/ids.hpp"
#include "mediagen/db/db.hpp"
#include "mediagen/orders/text.hpp"
#include "mediagen/orders/order.hpp"

namespace mediagen::db {
class AsyncPg;
}

namespace mediagen::orders {

// The order row, and with `with_items` all its items (flags set). No owner check: callers
// compare user_id. nullopt for no such order.
std::optional<Order> load_order(db::Db& db, db::Tx& tx, const OrderId& order_id, bool with_items);

// Every record of the order (chunks, retries, regenerations) by chunk_index, then age; the
// can_retry / can_regenerate flags are left false (load_order sets them).
std::vector<Item> load_items(db::Db& db, db::Tx& tx, const OrderId& order_id);

// The caller's own order; 404 otherwise.
Result<Order> find_own_order(db::Db& db, UserId user, const OrderId& order_id, bool with_items);
// With its items and queue position, in one statement.
boost::asio::awaitable<Result<Order>> find_own_order(db::AsyncPg& pg, UserId user, OrderId order_id);

inline constexpr std::int64_t kDefaultOrdersPerPage = 20;
inline constexpr std::int64_t kMaxOrdersPerPage = 100;

struct OrderFilter {
  std::int64_t page = 1;  // from 1
  std::int64_t per_page = kDefaultOrdersPerPage;  // 1..kMaxOrdersPerPage
  std::optional<TemplateId> template_id;
  std::optional<OrderStatus> status;
  // Set: any of these (empty when only values outside the task_type enum were asked for: nothing
  // matches). Unset: every type.
  std::optional<std::vector<TaskType>> task_types;
};

struct OrderPage {
  std::vector<Order> items;  // without their items
  std::int64_t total = 0;
  std::int64_t page = 1;
  std::int64_t per_page = kDefaultOrdersPerPage;
  std::int64_t last_page() const { return total == 0 ? 1 : (total + per_page - 1) / per_page; }
};

// The caller's orders matching the filter, newest first (created_at, then id, descending).
// A page beyond the last is empty.
OrderPage list_orders(db::Db& db, UserId user, const OrderFilter& filter);

// One item of the caller's own order, flags set; 404 otherwise.
boost::asio::awaitable<Result<Item>> find_own_item(db::AsyncPg& pg, UserId user, OrderId order_id, ItemId item_id);

// GET /orders/{order}/items/{item}/text: the current text and its measures (see
// ChunkTextFields). 404 as find_own_item; 422 input_expired once retention removed the text.
struct ItemText {
  std::string text;
  ChunkTextFields fields;
};
boost::asio::awaitable<Result<ItemText>> item_text(db::AsyncPg& pg, UserId user, OrderId order_id, ItemId item_id);

// What one completed chunk record spoke and when (the compatible surfaces' timestamps): its text
// (empty once retention removed it) and its word timings as the worker stored them
// (order_items.timings; "[]" when none). nullopt for an item of no order of `user`.
struct ItemSpeech {
  std::string text;
  std::string timings_json = "[]";
};
std::optional<ItemSpeech> item_speech(db::Db& db, UserId user, const std::string& item_id);

}  // namespace mediagen::orders

// The Order and OrderItem objects of the API (spec 2.3, 2.4), written with JsonWriter: these
// are rendered on every poll, so no JSON tree is built. Times are ISO 8601 with the offset of
// the request's time zone.
//
// Order: id, status, task_type, template_id, service_key, generation_mode, config_override,
// price_units (money, minor units), tokens_from_quota, tokens_from_payg, result (null until the
// order has files; then {files, service_files, duration_ms}), retry_of, created_at, updated_at,
// and items when asked for.
// Item: id, order_id, item_type, chunk_index, paragraph_index (originals of a paragraph-mode
// order only), parent_item_id, original_text_length, current_text_length, price_units,
// consumed_units, remaining_locked (tokens), status, result_file (null or {path, size}),
// duration_ms, attempt_number, can_retry, can_regenerate, failure_reason (failed and
// policy_flagged only), created_at, updated_at.
#include <string>
#include <vector>

#include "mediagen/core/json_writer.hpp"
#include "mediagen/core/time_zone.hpp"

namespace mediagen::orders {

struct OrderPage;
struct ItemText;

enum class WithItems : bool { no, yes };

void write_order(JsonWriter& out, const Order& order, const TimeZone& tz, WithItems with_items);
void write_item(JsonWriter& out, const Item& item, const TimeZone& tz);
// The value of an order's `result` key: null until it has files (the realtime order.updated
// event carries the same value).
void write_order_result(JsonWriter& out, const Order& order);
// `"failure_reason": "stitch_failed"` or `null` (an extension of the spec's Order fields).
void write_order_failure(JsonWriter& out, const Order& order);

std::string order_json(const Order& order, const TimeZone& tz, WithItems with_items = WithItems::no);
std::string item_json(const Item& item, const TimeZone& tz);
// A flat array of items (GET /orders/{order}/items).
std::string items_json(const std::vector<Item>& items, const TimeZone& tz);
// {items, current_page, last_page, per_page, total} (GET /orders).
std::string order_page_json(const OrderPage& page, const TimeZone& tz);
// The data of GET /orders/{order}/items/{item}/text.
std::string item_text_json(const ItemText& text);

}  // namespace mediagen::orders

// The realtime events of an order channel (private-order.task.{orderId}):
//   order.updated       {order_id, status, task_type, updated_at, seq} plus `result` and
//                       `failure_reason` (their values in GET /orders/{order} data) once the
//                       status is terminal
//   order.item.updated  {order_id, item_id, chunk_index, item_type, status, attempt_number, seq}
// `seq` counts the events of one order (both names share it) in orders.event_seq: +1 per event,
// the same on every instance. Times are ISO 8601 in UTC with the offset, as REST renders them
// by default.
//
// A change note only says WHAT changed; the event carries the state read when its seq is
// assigned, under the order row's lock. So the event with the higher seq never shows an older
// state than one with a lower seq, whatever order the notes of concurrent threads or instances
// arrive in.
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "mediagen/core/counters.hpp"
#include "mediagen/db/connection.hpp"
#include "mediagen/db/db.hpp"
#include "mediagen/realtime/event.hpp"

namespace mediagen::orders {

// Turns committed changes into realtime events on a thread of its own with its own PostgreSQL
// connection. That connection commits with synchronous_commit off: a bump waits for no WAL
// flush; only a crash of the database server itself can lose the last bumps (under a second),
// after which seqs already sent are issued again.
// Per change: the bump of orders.event_seq and the read of the payload, then
// broadcaster.publish(...).
//
// Failures are never the caller's: a change for an order or item that does not exist (or a
// malformed id) is dropped; a PostgreSQL failure is logged, drops that change and the next
// change reconnects (not before a second has passed, so a database that is down costs one
// attempt a second, not one per change). Notes beyond kMaxQueued waiting are dropped and logged.
class OrderEventPublisher {
 public:
  static constexpr std::size_t kMaxQueued = 100'000;

  // `broadcaster` and `counters` must outlive the publisher. `webhook_ready` is told (on the
  // publisher's thread; it must not block) when an event filled in the data of webhook messages.
  OrderEventPublisher(std::string database_url, realtime::Broadcaster& broadcaster, InfraCounters& counters,
                      db::ConnectLimits limits = {}, std::function<void()> webhook_ready = {});
  ~OrderEventPublisher();  // stop()
  OrderEventPublisher(const OrderEventPublisher&) = delete;
  OrderEventPublisher& operator=(const OrderEventPublisher&) = delete;

  // Changes noted before start() wait for it. start() after stop() does nothing.
  void start();
  // Publishes what is queued, then joins the thread; later notes are dropped.
  void stop();

  // Non-blocking (a queue push); callable from any thread.
  void changed(OrderChange change);
  void changed(std::vector<OrderChange> changes);

 private:
  struct State;
  std::unique_ptr<State> state_;
};

// The order's current state as an order.updated event carrying its current seq (no bump), for a
// new subscriber of its channel; nullopt when the order does not exist or the id is malformed.
// Blocking SQL: call it on the blocking pool.
std::optional<realtime::Event> order_snapshot(db::Db& db, const OrderId& order_id);

// The data of a webhook message whose event the publisher never rendered (it dropped the change,
// or its instance stopped): the event rendered now, with a seq of its own, as the publisher would
// have. `subject_id` is the order's id (order.updated) or the item's. nullopt when there is no
// such order or item.
std::optional<std::string> webhook_event_data(db::Db& db, const std::string& order_id, const std::string& subject_id,
                                              bool item);

}  // namespace mediagen::orders

// When an item may be retried for free or regenerated for money (spec 2.4, 3.2, 4.2). The item
// JSON's can_retry / can_regenerate and the retry and regenerate operations use these same
// functions, so a flag that says "yes" is never refused for a reason the flag knew about.
//
// A position is the set of records sharing a chunk_index. Its "last attempt" is the newest
// record of type chunk or retry; the result uses its newest completed record of any type.
// "Newest" orders by created_at, then attempt_number, then id (ties only within one
// transaction, which never creates two records of one position).
#include <optional>
#include <vector>

#include <boost/asio/awaitable.hpp>

#include "mediagen/core/api_error.hpp"

namespace mediagen::orders {

// What the records of one position say.
struct Position {
  const Item* last_attempt = nullptr;      // newest chunk or retry record
  const Item* newest_completed = nullptr;  // newest completed record of any type
  bool live = false;                       // a pending or processing record exists
};

Position position_of(const std::vector<Item>& items_of_order, int chunk_index);

// Why a free retry of `item` is refused now, or nullopt when it is allowed. Checked in this
// order: generative_not_supported (sfx, music), invalid_order_status (order not
// partially_completed), stitch_in_progress, active_retry_exists (a live record at the
// position), invalid_status (not failed/policy_flagged, or not the position's last attempt),
// max_attempts_reached (attempt_number >= kMaxAttempts).
std::optional<Reason> retry_refusal(const Order& order, const Position& position, const Item& item);

// Why a paid regeneration of `item` is refused now, or nullopt when it is allowed:
// generative_not_supported, invalid_order_status (order not completed, result_delivered or
// partially_completed), input_expired (the order's files were removed by retention),
// stitch_in_progress, active_retry_exists, invalid_status (not completed, or not the newest
// completed record of its position).
std::optional<Reason> regenerate_refusal(const Order& order, const Position& position, const Item& item);

bool can_retry(const Order& order, const std::vector<Item>& items_of_order, const Item& item);
bool can_regenerate(const Order& order, const std::vector<Item>& items_of_order, const Item& item);

// Sets can_retry and can_regenerate on every item of the order (one pass per position).
void apply_item_flags(const Order& order, std::vector<Item>& items_of_order);

}  // namespace mediagen::orders

#include "mediagen/http/routes_fwd.hpp"

namespace mediagen::orders {

// GET /orders, GET /orders/{order}, GET /orders/{order}/items, GET /orders/{order}/items/{item},
// GET /orders/{order}/items/{item}/text (spec 4.1, 4.2), all with orders.read. Orders have no
// update or delete: PUT, PATCH and DELETE /orders/{order} answer 405 from the router.
void register_order_read_routes(http::Router& router, db::BlockingPool& pool, db::AsyncPg& reads);

}  // namespace mediagen::orders
