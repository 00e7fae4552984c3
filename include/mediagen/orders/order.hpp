#pragma once
// The order state machine: the statuses of orders and of their items (chunk, retry and
// regeneration records), every move between them as data (spec 3.1 and 3.2, and the choices
// written into openapi/openapi.yaml for what the spec leaves open), and the one decision an order
// takes when its records settle. The orders store writes only the moves listed here.
#include <array>
#include <cstdint>
#include <optional>
#include <string_view>

namespace mediagen::orders {

enum class OrderStatus {
  created, pending, in_progress, completed, result_delivered, failed, compensated, cancelled, partially_completed
};
std::string_view to_string(OrderStatus status) noexcept;
std::optional<OrderStatus> order_status_from_string(std::string_view name) noexcept;
bool is_terminal(OrderStatus status) noexcept;  // completed, result_delivered, failed, compensated, cancelled
// Closed: nothing about the order changes any more (a stitch or a late chunk writes nothing).
bool is_closed(OrderStatus status) noexcept;    // failed, compensated, cancelled

enum class ItemStatus { pending, processing, completed, failed, policy_flagged };
std::string_view to_string(ItemStatus status) noexcept;
std::optional<ItemStatus> item_status_from_string(std::string_view name) noexcept;

// What moves an order or an item; a name for the logs and the tests, not a wire value.
enum class Trigger {
  create,           // POST /orders, order retry (a new order)
  claim,            // a worker takes the first chunk
  requeue,          // every claimed chunk went back to the queue before anything completed
  settle,           // the last live record of the order finished
  stitch_finished,  // the result track was written
  stitch_failed,    // the last allowed stitch attempt failed: no result can be built
  cancel,           // POST /orders/{order}/cancel
  compensate,       // partially_completed left unchanged past MEDIAGEN_COMPENSATE_AFTER_SECONDS
  delivered,        // the first signed link to a result file
  lease_expired,    // a claim's lease ran out
  drain,            // a server drained and gave its claims back
  engine_outcome,   // the engine produced audio, failed, or the content policy refused
  undelivered,      // the answer that was to carry the order's audio ended without it (compat)
};

template <class Status>
struct Move {
  Status from;
  Status to;
  Trigger trigger;
};

// Every move of an order between two statuses. Staying (partially_completed after another
// retry settles, completed stitched again after a regeneration) is not a move.
inline constexpr std::array<Move<OrderStatus>, 21> kOrderMoves{{
    {OrderStatus::created, OrderStatus::in_progress, Trigger::claim},
    {OrderStatus::pending, OrderStatus::in_progress, Trigger::claim},
    {OrderStatus::in_progress, OrderStatus::pending, Trigger::requeue},
    {OrderStatus::in_progress, OrderStatus::partially_completed, Trigger::settle},
    {OrderStatus::in_progress, OrderStatus::failed, Trigger::settle},
    {OrderStatus::partially_completed, OrderStatus::failed, Trigger::settle},
    {OrderStatus::in_progress, OrderStatus::completed, Trigger::stitch_finished},
    {OrderStatus::partially_completed, OrderStatus::completed, Trigger::stitch_finished},
    {OrderStatus::in_progress, OrderStatus::failed, Trigger::stitch_failed},
    {OrderStatus::partially_completed, OrderStatus::failed, Trigger::stitch_failed},
    {OrderStatus::created, OrderStatus::cancelled, Trigger::cancel},
    {OrderStatus::pending, OrderStatus::cancelled, Trigger::cancel},
    {OrderStatus::partially_completed, OrderStatus::cancelled, Trigger::cancel},
    {OrderStatus::partially_completed, OrderStatus::compensated, Trigger::compensate},
    {OrderStatus::completed, OrderStatus::result_delivered, Trigger::delivered},
    // An order made for one answer (the OpenAI-compatible surface) ends with it.
    {OrderStatus::created, OrderStatus::failed, Trigger::undelivered},
    {OrderStatus::pending, OrderStatus::failed, Trigger::undelivered},
    {OrderStatus::in_progress, OrderStatus::failed, Trigger::undelivered},
    {OrderStatus::partially_completed, OrderStatus::failed, Trigger::undelivered},
    {OrderStatus::completed, OrderStatus::failed, Trigger::undelivered},
    {OrderStatus::result_delivered, OrderStatus::failed, Trigger::undelivered},
}};

inline constexpr std::array<Move<ItemStatus>, 9> kItemMoves{{
    {ItemStatus::pending, ItemStatus::processing, Trigger::claim},
    {ItemStatus::processing, ItemStatus::pending, Trigger::lease_expired},
    {ItemStatus::processing, ItemStatus::pending, Trigger::drain},
    {ItemStatus::processing, ItemStatus::completed, Trigger::engine_outcome},
    {ItemStatus::processing, ItemStatus::failed, Trigger::engine_outcome},
    {ItemStatus::processing, ItemStatus::policy_flagged, Trigger::engine_outcome},
    {ItemStatus::processing, ItemStatus::failed, Trigger::lease_expired},  // the fifth claim's lease
    {ItemStatus::pending, ItemStatus::failed, Trigger::cancel},
    {ItemStatus::processing, ItemStatus::failed, Trigger::cancel},
}};

// Why an order failed, when it is not the plain "no position completed" (failure_reason null).
// not_delivered: the answer that was to carry its audio ended before all of it was sent.
enum class OrderFailure { stitch_failed, not_delivered };
std::string_view to_string(OrderFailure reason) noexcept;
std::optional<OrderFailure> order_failure_from_string(std::string_view name) noexcept;

// What an order becomes when its stitch gives up: a finished order (re-stitched after a
// regeneration) keeps its status and its previous result; any other becomes failed.
OrderStatus after_stitch_gave_up(OrderStatus current) noexcept;

// Whether the tables allow the move (for a trigger, or by any trigger).
bool can_move(OrderStatus from, OrderStatus to, std::optional<Trigger> trigger = std::nullopt) noexcept;
bool can_move(ItemStatus from, ItemStatus to, std::optional<Trigger> trigger = std::nullopt) noexcept;

// An order's positions once a record finished: `live` records still pending or processing (of
// any type), and of each position's last attempt (its newest chunk or retry record) how many
// `completed`, out of `positions`.
struct Positions {
  std::int64_t live = 0;
  std::int64_t completed = 0;
  std::int64_t positions = 0;
};

enum class Settlement {
  wait,                 // records are still live, or the order is closed: nothing to decide
  stitch,               // every position completed: the result track is (re)built
  partially_completed,  // some completed, the others failed: the locks stay for retries
  failed,               // none completed: everything still locked goes back
};

// What an order in `current` becomes when a record settles; `item_completed`: the record that
// finished completed (a finished order is stitched again only for new audio).
Settlement settle(OrderStatus current, Positions positions, bool item_completed) noexcept;

namespace detail {
// The enumerator named `name` in a table of names listed in declaration order.
template <class Enum, std::size_t N>
std::optional<Enum> enum_from_name(const std::array<std::string_view, N>& names, std::string_view name) noexcept {
  for (std::size_t i = 0; i < N; ++i) {
    if (names[i] == name) return static_cast<Enum>(i);
  }
  return std::nullopt;
}
}  // namespace detail

}  // namespace mediagen::orders

// Orders and their items as stored (migrations/0003): the values every part of the order
// machinery shares. The statuses and their moves are in order_status.hpp.
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "mediagen/core/clock.hpp"
#include "mediagen/core/ids.hpp"
#include "mediagen/core/task_type.hpp"
#include "mediagen/core/uuid_id.hpp"

namespace mediagen::orders {

enum class ItemType { chunk, retry, regeneration };
std::string_view to_string(ItemType type) noexcept;
std::optional<ItemType> item_type_from_string(std::string_view name) noexcept;


// Attempts per chunk position (spec 8.2): the original plus at most four retries.
inline constexpr int kMaxAttempts = 5;
// Item retry and regenerate text (spec 4.2, 8.2).
inline constexpr std::size_t kMaxItemTextChars = 50000;

// Storage keys of an order's files.
std::string order_storage_prefix(std::string_view order_id);                       // "orders/<id>/"
// ".../items/<item>.<claim>.mp3": one file per claim, so a worker that lost its lease and
// finishes late never overwrites the file of the attempt that completed.
std::string item_audio_key(std::string_view order_id, std::string_view item_id, std::string_view claim);
std::string result_audio_key(std::string_view order_id);                          // ".../result.mp3"
std::string result_audio_key(std::string_view order_id, std::string_view ext);    // ".../result.<ext>"
// A chunk's file in an order's output format (named `format`, extension `ext`) beside its MP3
// (item_audio_key), and back: ".../items/<item>.<claim>.<format>.<ext>".
std::string item_format_key(std::string_view mp3_key, std::string_view format, std::string_view ext);
std::string item_mp3_key(std::string_view format_key, std::string_view format, std::string_view ext);
std::string result_subtitles_key(std::string_view order_id, std::string_view ext);  // ".../result.srt|vtt"

struct Item {
  std::string id;
  std::string order_id;
  ItemType type = ItemType::chunk;
  int chunk_index = 0;
  std::optional<int> paragraph_index;
  std::optional<std::string> parent_item_id;
  int attempt_number = 1;
  ItemStatus status = ItemStatus::pending;
  std::optional<std::string> failure_reason;
  bool text_removed = false;
  int original_text_length = 0;
  int current_text_length = 0;
  std::int64_t price_units = 0;      // tokens
  std::int64_t consumed_units = 0;   // tokens
  std::int64_t remaining_locked = 0; // tokens
  std::optional<std::string> result_path;
  std::optional<std::int64_t> result_size;
  std::optional<std::int64_t> duration_ms;
  // Computed from the same rules the retry and regenerate operations enforce.
  bool can_retry = false;
  bool can_regenerate = false;
  TimePoint created_at;
  TimePoint updated_at;
};

struct Order {
  std::string id;
  UserId user_id;
  TaskType task_type = TaskType::tts;
  OrderStatus status = OrderStatus::created;
  std::string service_key;
  std::optional<std::string> template_id;
  std::string config_override_json = "{}";
  std::string generation_mode = "ordinary";
  std::int64_t price_units = 0;        // money, minor units of the platform currency
  std::int64_t tokens_from_quota = 0;
  std::int64_t tokens_from_payg = 0;
  std::vector<std::string> result_files;
  std::vector<std::string> result_service_files;
  std::optional<std::int64_t> result_duration_ms;
  // A result that is data rather than files (voice_search: {"voices", "truncated",
  // "analysed_seconds"}), a JSON object whose members join result's.
  std::optional<std::string> result_data_json;
  std::optional<std::string> retry_of;
  std::optional<OrderFailure> failure_reason;  // why it failed, beyond "no position completed"
  bool stitching = false;
  bool files_removed = false;
  TimePoint created_at;
  TimePoint updated_at;
  std::vector<Item> items;  // filled on GET /orders/{order} only
  // GET /orders/{order} of an order with a waiting chunk: 1 when its first waiting chunk is next
  // for the workers, n when n - 1 other orders have chunks waiting before it.
  std::optional<std::int64_t> queue_position;
};

}  // namespace mediagen::orders

// One committed status change of an order or of one of its items: what every path that changes
// a status (the order operations, the work queue, the janitor) hands on after commit, for the
// realtime events (and the webhooks to come). It only says WHAT changed; consumers read the state.
#include <string>
#include <string_view>

namespace mediagen::orders {

struct OrderChange {
  enum class Subject { order, item };
  Subject subject = Subject::order;
  std::string id;        // the order's id, or the item's
  std::string order_id;  // the order's id (for an order change it may be left empty)
  // The new status's name (to_string of OrderStatus or ItemStatus: static storage); empty when
  // the change is only "look again" (a new record, a cancel's order row).
  std::string_view status;
};

}  // namespace mediagen::orders

// The money of one order, as ledger transfers (see migrations/0003 and billing/ledger.hpp).
// Every function runs inside the caller's transaction, next to the state change it belongs to.
//
// Lock order: quota legs are always posted before money legs, in every transfer, so two
// transactions of one user never wait for each other's account rows in opposite orders.
#include <cstdint>
#include <string>
#include <string_view>

#include "mediagen/billing/ledger.hpp"
#include "mediagen/core/ids.hpp"
#include "mediagen/db/db.hpp"

namespace mediagen::orders {

struct OrderAccounts {
  UserId user;
  std::string order_id;
  AssetId money;   // the platform currency
  AssetId tokens;  // subscription quota
};

// What a lock, a charge or a refund moves: tokens of quota and minor units of money.
struct Amounts {
  std::int64_t quota_tokens = 0;
  std::int64_t minor = 0;
};

// The order's estimate: quota -> quota escrow, wallet -> escrow ("order_lock", ref order id).
// Throws billing::InsufficientBalance when either source cannot pay.
void lock_order(db::Db& db, db::Tx& tx, const OrderAccounts& order, Amounts amounts);

// A surcharge or regeneration lock of one item ("item_lock", ref item id).
void lock_item(db::Db& db, db::Tx& tx, const OrderAccounts& order, std::string_view item_id, Amounts amounts);

// A completed item's price: escrow -> revenue, quota escrow -> quota spent ("chunk_charge",
// ref item id). Posting it again for the same item posts nothing (Posted::already).
billing::Posted charge_item(db::Db& db, db::Tx& tx, const OrderAccounts& order, std::string_view item_id,
                            Amounts amounts);

// A completed item's charge given back when the order's result can never be built:
// revenue -> wallet, quota spent -> quota ("charge_refund", ref item id); at most once per item.
void refund_charge(db::Db& db, db::Tx& tx, const OrderAccounts& order, std::string_view item_id, Amounts amounts);

// A failed item's surcharge (or a failed regeneration's lock) back to the user
// ("item_refund", ref item id).
void refund_item(db::Db& db, db::Tx& tx, const OrderAccounts& order, std::string_view item_id, Amounts amounts);

// Everything the order still holds back to the user ("order_release", ref order id), and every
// item's remaining_locked to 0. Returns what was released. An order can be released more than
// once (a completed order stitched again after a regeneration): a later release is posted
// under `again_reference` (e.g. "<order id>:<stitch token>"), which must then be unique.
Amounts release_order(db::Db& db, db::Tx& tx, const OrderAccounts& order, std::string_view again_reference = {});

}  // namespace mediagen::orders

// Which storage paths a user may get a download link for (spec 4.3): the result files and
// service files of their own orders, and the audio of their own orders' items. Every other
// path is 404, whether or not it exists.
#include <string_view>

#include "mediagen/core/api_error.hpp"
#include "mediagen/core/ids.hpp"
#include "mediagen/db/db.hpp"

namespace mediagen::orders {

// Blocking SQL. The first link to a path of result.files moves a completed order to
// result_delivered (spec 3.1), in the same transaction as the check.
Result<void> authorize_download(db::Db& db, UserId user, std::string_view path);

}  // namespace mediagen::orders

#include <chrono>
#include <functional>

#include "mediagen/access/principal.hpp"
#include "mediagen/core/api_error.hpp"
#include "mediagen/core/clock.hpp"
#include "mediagen/core/idempotency_key.hpp"
#include "mediagen/core/time_zone.hpp"

namespace mediagen::templates {
class ServiceCache;
}

// Who asks for an order operation.
namespace mediagen::orders {

// True when the content policy refuses a text (the workers' check, injected by the
// composition root so a retry text it would refuse is refused before any charge).
using ContentPolicy = std::function<bool(std::string_view text)>;

// Who asks, and how to render times.
class QuoteSigner;

struct Caller {
  const auth::Principal& principal;
  TimeZone tz;
  ContentPolicy blocked;  // may be empty: nothing is blocked up front
  const Clock* clock = nullptr;  // what decides the policy cooldown and quotes; null: the system clock
  // Signs the top-up quotes of the explicit-confirmation mode (spec 7.1); needed only with it on.
  const QuoteSigner* quotes = nullptr;
  // The services an order from a template is checked against, as kept in memory (null: read).
  templates::ServiceCache* services = nullptr;

  TimePoint now() const { return clock ? clock->now() : std::chrono::system_clock::now(); }
};

// The Idempotency-Key of the shared store (core/idempotency_key.hpp).
using mediagen::IdempotencyKey;
using mediagen::valid_idempotency_key;

}  // namespace mediagen::orders
