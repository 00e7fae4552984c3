// The order state machine: the moves of spec 3.1 and 3.2 and of openapi's choices, and the
// decision an order takes when its records settle.
#include "mediagen/orders/order.hpp"

#include <gtest/gtest.h>

namespace mediagen::orders {
namespace {

TEST(OrderMoves, TheSpecsTransitionsAreAllowed) {
  // Spec 3.1: cancel from created, pending and partially_completed only.
  for (auto from : {OrderStatus::created, OrderStatus::pending, OrderStatus::partially_completed}) {
    EXPECT_TRUE(can_move(from, OrderStatus::cancelled, Trigger::cancel)) << to_string(from);
  }
  for (auto from : {OrderStatus::in_progress, OrderStatus::completed, OrderStatus::result_delivered,
                    OrderStatus::failed, OrderStatus::compensated, OrderStatus::cancelled}) {
    EXPECT_FALSE(can_move(from, OrderStatus::cancelled)) << to_string(from);
  }
  // partially_completed -> completed once every failed chunk succeeded (after the stitch).
  EXPECT_TRUE(can_move(OrderStatus::partially_completed, OrderStatus::completed, Trigger::stitch_finished));
  EXPECT_TRUE(can_move(OrderStatus::completed, OrderStatus::result_delivered, Trigger::delivered));
}

TEST(OrderMoves, NothingLeavesAClosedStatus) {
  for (const auto& move : kOrderMoves) {
    EXPECT_FALSE(is_closed(move.from)) << to_string(move.from) << " -> " << to_string(move.to);
    EXPECT_NE(move.from, move.to);
  }
  EXPECT_FALSE(can_move(OrderStatus::result_delivered, OrderStatus::completed));
  EXPECT_FALSE(can_move(OrderStatus::failed, OrderStatus::pending));
}

// An order made for one answer (POST /v1/audio/speech) ends with it, from any status but a
// closed one, whose own rules already settled its money.
TEST(OrderMoves, AnUndeliveredAnswerFailsEveryOrderNotYetClosed) {
  for (auto from : {OrderStatus::created, OrderStatus::pending, OrderStatus::in_progress,
                    OrderStatus::partially_completed, OrderStatus::completed, OrderStatus::result_delivered}) {
    EXPECT_TRUE(can_move(from, OrderStatus::failed, Trigger::undelivered)) << to_string(from);
  }
  for (auto from : {OrderStatus::failed, OrderStatus::compensated, OrderStatus::cancelled}) {
    EXPECT_FALSE(can_move(from, OrderStatus::failed, Trigger::undelivered)) << to_string(from);
  }
  EXPECT_EQ(to_string(OrderFailure::not_delivered), "not_delivered");
  EXPECT_EQ(order_failure_from_string("not_delivered"), OrderFailure::not_delivered);
}

TEST(ItemMoves, OnlyAClaimedRecordFinishes) {
  for (auto to : {ItemStatus::completed, ItemStatus::policy_flagged}) {
    EXPECT_TRUE(can_move(ItemStatus::processing, to, Trigger::engine_outcome));
    EXPECT_FALSE(can_move(ItemStatus::pending, to));
  }
  EXPECT_TRUE(can_move(ItemStatus::pending, ItemStatus::processing, Trigger::claim));
  EXPECT_TRUE(can_move(ItemStatus::processing, ItemStatus::pending, Trigger::lease_expired));
  EXPECT_TRUE(can_move(ItemStatus::pending, ItemStatus::failed, Trigger::cancel));
  // A finished record never changes again: a retry is a new record (spec 3.2).
  for (const auto& move : kItemMoves) {
    EXPECT_NE(move.from, ItemStatus::completed);
    EXPECT_NE(move.from, ItemStatus::failed);
    EXPECT_NE(move.from, ItemStatus::policy_flagged);
  }
}

TEST(Settle, WaitsWhileARecordIsLive) {
  EXPECT_EQ(settle(OrderStatus::in_progress, {.live = 1, .completed = 2, .positions = 3}, true), Settlement::wait);
  EXPECT_EQ(settle(OrderStatus::in_progress, {.live = 0, .completed = 0, .positions = 0}, false), Settlement::wait);
}

TEST(Settle, AllCompletedStitchesSomeCompletedIsPartialNoneFails) {
  EXPECT_EQ(settle(OrderStatus::in_progress, {.live = 0, .completed = 3, .positions = 3}, true), Settlement::stitch);
  EXPECT_EQ(settle(OrderStatus::in_progress, {.live = 0, .completed = 1, .positions = 3}, false),
            Settlement::partially_completed);
  EXPECT_EQ(settle(OrderStatus::in_progress, {.live = 0, .completed = 0, .positions = 3}, false), Settlement::failed);
  EXPECT_EQ(settle(OrderStatus::partially_completed, {.live = 0, .completed = 3, .positions = 3}, true),
            Settlement::stitch);
}

TEST(Settle, AFinishedOrderIsStitchedAgainOnlyForNewAudio) {
  for (auto status : {OrderStatus::completed, OrderStatus::result_delivered}) {
    EXPECT_EQ(settle(status, {.live = 0, .completed = 3, .positions = 3}, true), Settlement::stitch);
    EXPECT_EQ(settle(status, {.live = 0, .completed = 3, .positions = 3}, false), Settlement::wait);
  }
}

TEST(Settle, AClosedOrderDecidesNothing) {
  for (auto status : {OrderStatus::failed, OrderStatus::compensated, OrderStatus::cancelled}) {
    EXPECT_EQ(settle(status, {.live = 0, .completed = 3, .positions = 3}, true), Settlement::wait);
  }
}

TEST(Settle, EveryDecisionIsAListedMove) {
  const Positions all{.live = 0, .completed = 2, .positions = 2};
  const Positions some{.live = 0, .completed = 1, .positions = 2};
  const Positions none{.live = 0, .completed = 0, .positions = 2};
  EXPECT_EQ(settle(OrderStatus::in_progress, some, false), Settlement::partially_completed);
  EXPECT_TRUE(can_move(OrderStatus::in_progress, OrderStatus::partially_completed, Trigger::settle));
  for (auto from : {OrderStatus::in_progress, OrderStatus::partially_completed}) {
    EXPECT_EQ(settle(from, all, true), Settlement::stitch);
    EXPECT_TRUE(can_move(from, OrderStatus::completed, Trigger::stitch_finished));
    EXPECT_EQ(settle(from, none, false), Settlement::failed);
    EXPECT_TRUE(can_move(from, OrderStatus::failed, Trigger::settle));
  }
}

TEST(OrderMoves, AStitchThatGivesUpFailsAnUnfinishedOrderAndLeavesAFinishedOneAsItIs) {
  for (auto from : {OrderStatus::in_progress, OrderStatus::partially_completed}) {
    EXPECT_EQ(after_stitch_gave_up(from), OrderStatus::failed) << to_string(from);
    EXPECT_TRUE(can_move(from, OrderStatus::failed, Trigger::stitch_failed)) << to_string(from);
  }
  // A regeneration's re-stitch that gives up keeps the result the order already has.
  EXPECT_EQ(after_stitch_gave_up(OrderStatus::completed), OrderStatus::completed);
  EXPECT_EQ(after_stitch_gave_up(OrderStatus::result_delivered), OrderStatus::result_delivered);
  // Closed orders have no stitch to give up.
  EXPECT_EQ(after_stitch_gave_up(OrderStatus::cancelled), OrderStatus::cancelled);
  EXPECT_EQ(to_string(OrderFailure::stitch_failed), "stitch_failed");
  EXPECT_EQ(order_failure_from_string("stitch_failed"), OrderFailure::stitch_failed);
  EXPECT_FALSE(order_failure_from_string("failed"));
}

}  // namespace
}  // namespace mediagen::orders
