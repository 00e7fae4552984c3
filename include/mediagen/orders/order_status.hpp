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
