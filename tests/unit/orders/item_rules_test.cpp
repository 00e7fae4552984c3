// can_retry / can_regenerate (spec 2.4, 3.2, 4.2): the rules the item JSON shows and the retry
// and regenerate operations enforce.
#include "mediagen/orders/reads.hpp"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace mediagen::orders {
namespace {

using namespace std::chrono_literals;

Order order_in(OrderStatus status, TaskType task_type = TaskType::tts) {
  Order o;
  o.id = "00000000-0000-4000-8000-000000000001";
  o.task_type = task_type;
  o.status = status;
  return o;
}

// Records are created a second apart in the order they are listed.
class Records {
 public:
  Item& add(ItemType type, int chunk_index, ItemStatus status, int attempt = 1) {
    Item i;
    i.id = "item-" + std::to_string(items.size());
    i.type = type;
    i.chunk_index = chunk_index;
    i.status = status;
    i.attempt_number = attempt;
    i.created_at = TimePoint{std::chrono::seconds{1'800'000'000 + static_cast<long>(items.size())}};
    if (type != ItemType::chunk) i.parent_item_id = "item-0";
    items.push_back(i);
    return items.back();
  }
  std::vector<Item> items;
};

std::optional<Reason> why_not_retry(const Order& o, const std::vector<Item>& items, std::size_t index) {
  return retry_refusal(o, position_of(items, items[index].chunk_index), items[index]);
}

std::optional<Reason> why_not_regenerate(const Order& o, const std::vector<Item>& items, std::size_t index) {
  return regenerate_refusal(o, position_of(items, items[index].chunk_index), items[index]);
}

// ---- retry ----

TEST(ItemRules, AFailedChunkOfAPartiallyCompletedOrderCanBeRetried) {
  Records r;
  r.add(ItemType::chunk, 0, ItemStatus::completed);
  r.add(ItemType::chunk, 1, ItemStatus::failed);
  r.add(ItemType::chunk, 2, ItemStatus::policy_flagged);
  const auto order = order_in(OrderStatus::partially_completed);
  EXPECT_FALSE(can_retry(order, r.items, r.items[0]));
  EXPECT_TRUE(can_retry(order, r.items, r.items[1]));
  EXPECT_TRUE(can_retry(order, r.items, r.items[2]));
  EXPECT_EQ(why_not_retry(order, r.items, 0), Reason::invalid_status);
}

TEST(ItemRules, RetryNeedsAPartiallyCompletedOrder) {
  Records r;
  r.add(ItemType::chunk, 0, ItemStatus::failed);
  for (auto status : {OrderStatus::created, OrderStatus::pending, OrderStatus::in_progress, OrderStatus::completed,
                      OrderStatus::result_delivered, OrderStatus::failed, OrderStatus::compensated,
                      OrderStatus::cancelled}) {
    EXPECT_FALSE(can_retry(order_in(status), r.items, r.items[0])) << to_string(status);
    EXPECT_EQ(why_not_retry(order_in(status), r.items, 0), Reason::invalid_order_status) << to_string(status);
  }
}

TEST(ItemRules, SoundEffectsAndMusicAreNeverRetriedOrRegenerated) {
  Records r;
  r.add(ItemType::chunk, 0, ItemStatus::failed);
  r.add(ItemType::chunk, 1, ItemStatus::completed);
  for (const TaskType type : {TaskType::sfx, TaskType::music}) {
    EXPECT_FALSE(can_retry(order_in(OrderStatus::partially_completed, type), r.items, r.items[0])) << task_type_name(type);
    EXPECT_EQ(why_not_retry(order_in(OrderStatus::partially_completed, type), r.items, 0),
              Reason::generative_not_supported);
    EXPECT_FALSE(can_regenerate(order_in(OrderStatus::partially_completed, type), r.items, r.items[1])) << task_type_name(type);
    EXPECT_EQ(why_not_regenerate(order_in(OrderStatus::partially_completed, type), r.items, 1),
              Reason::generative_not_supported);
  }
  EXPECT_TRUE(can_retry(order_in(OrderStatus::partially_completed, TaskType::voice_search), r.items, r.items[0]));
}

TEST(ItemRules, TheFifthAttemptIsTheLast) {
  Records r;
  r.add(ItemType::chunk, 0, ItemStatus::failed, 1);
  r.add(ItemType::retry, 0, ItemStatus::failed, 2);
  r.add(ItemType::retry, 0, ItemStatus::failed, 3);
  r.add(ItemType::retry, 0, ItemStatus::failed, 4);
  const auto order = order_in(OrderStatus::partially_completed);
  EXPECT_TRUE(can_retry(order, r.items, r.items[3]));
  r.add(ItemType::retry, 0, ItemStatus::failed, 5);
  EXPECT_FALSE(can_retry(order, r.items, r.items[4]));
  EXPECT_EQ(why_not_retry(order, r.items, 4), Reason::max_attempts_reached);
}

TEST(ItemRules, OnlyThePositionsLastAttemptCanBeRetried) {
  Records r;
  r.add(ItemType::chunk, 0, ItemStatus::failed, 1);
  r.add(ItemType::retry, 0, ItemStatus::failed, 2);
  const auto order = order_in(OrderStatus::partially_completed);
  EXPECT_FALSE(can_retry(order, r.items, r.items[0]));
  EXPECT_EQ(why_not_retry(order, r.items, 0), Reason::invalid_status);
  EXPECT_TRUE(can_retry(order, r.items, r.items[1]));
}

TEST(ItemRules, AFailedRegenerationIsNotAnAttemptToRetry) {
  Records r;
  r.add(ItemType::chunk, 0, ItemStatus::completed);
  r.add(ItemType::regeneration, 0, ItemStatus::failed);
  r.add(ItemType::chunk, 1, ItemStatus::failed);
  const auto order = order_in(OrderStatus::partially_completed);
  EXPECT_FALSE(can_retry(order, r.items, r.items[1]));
  EXPECT_EQ(why_not_retry(order, r.items, 1), Reason::invalid_status);
  // The chunk it tried to replace is still the newest completed take.
  EXPECT_TRUE(can_regenerate(order, r.items, r.items[0]));
}

TEST(ItemRules, ALiveRecordAtThePositionBlocksRetryAndRegeneration) {
  Records r;
  r.add(ItemType::chunk, 0, ItemStatus::failed, 1);
  r.add(ItemType::retry, 0, ItemStatus::pending, 2);
  r.add(ItemType::chunk, 1, ItemStatus::completed);
  r.add(ItemType::regeneration, 1, ItemStatus::processing);
  const auto order = order_in(OrderStatus::partially_completed);
  EXPECT_EQ(why_not_retry(order, r.items, 0), Reason::active_retry_exists);
  EXPECT_FALSE(can_retry(order, r.items, r.items[1]));
  EXPECT_EQ(why_not_regenerate(order, r.items, 2), Reason::active_retry_exists);
  EXPECT_FALSE(can_regenerate(order, r.items, r.items[2]));
}

TEST(ItemRules, NothingIsRetriedOrRegeneratedWhileTheOrderIsStitched) {
  Records r;
  r.add(ItemType::chunk, 0, ItemStatus::failed);
  r.add(ItemType::chunk, 1, ItemStatus::completed);
  auto order = order_in(OrderStatus::partially_completed);
  EXPECT_TRUE(can_retry(order, r.items, r.items[0]));
  EXPECT_TRUE(can_regenerate(order, r.items, r.items[1]));
  order.stitching = true;
  EXPECT_EQ(why_not_retry(order, r.items, 0), Reason::stitch_in_progress);
  EXPECT_EQ(why_not_regenerate(order, r.items, 1), Reason::stitch_in_progress);
}

TEST(ItemRules, ARecordOfTheSameInstantWithAHigherAttemptIsTheNewer) {
  Records r;
  const TimePoint instant = r.add(ItemType::chunk, 0, ItemStatus::failed, 1).created_at;
  r.add(ItemType::retry, 0, ItemStatus::failed, 2).created_at = instant;
  const auto order = order_in(OrderStatus::partially_completed);
  EXPECT_FALSE(can_retry(order, r.items, r.items[0]));
  EXPECT_TRUE(can_retry(order, r.items, r.items[1]));
}

// ---- regenerate ----

TEST(ItemRules, TheNewestCompletedTakeOfAFinishedOrderCanBeRegenerated) {
  Records r;
  r.add(ItemType::chunk, 0, ItemStatus::completed);
  r.add(ItemType::regeneration, 0, ItemStatus::completed);
  r.add(ItemType::chunk, 1, ItemStatus::completed);
  for (auto status : {OrderStatus::completed, OrderStatus::result_delivered, OrderStatus::partially_completed}) {
    const auto order = order_in(status);
    EXPECT_FALSE(can_regenerate(order, r.items, r.items[0])) << to_string(status);
    EXPECT_TRUE(can_regenerate(order, r.items, r.items[1])) << to_string(status);
    EXPECT_TRUE(can_regenerate(order, r.items, r.items[2])) << to_string(status);
    EXPECT_FALSE(can_retry(order, r.items, r.items[1])) << to_string(status);
  }
  EXPECT_EQ(why_not_regenerate(order_in(OrderStatus::completed), r.items, 0), Reason::invalid_status);
}

TEST(ItemRules, RegenerationNeedsAFinishedOrder) {
  Records r;
  r.add(ItemType::chunk, 0, ItemStatus::completed);
  for (auto status : {OrderStatus::created, OrderStatus::pending, OrderStatus::in_progress, OrderStatus::failed,
                      OrderStatus::compensated, OrderStatus::cancelled}) {
    EXPECT_EQ(why_not_regenerate(order_in(status), r.items, 0), Reason::invalid_order_status) << to_string(status);
  }
}

TEST(ItemRules, OnlyCompletedRecordsCanBeRegenerated) {
  Records r;
  r.add(ItemType::chunk, 0, ItemStatus::failed);
  r.add(ItemType::chunk, 1, ItemStatus::policy_flagged);
  r.add(ItemType::chunk, 2, ItemStatus::completed);
  const auto order = order_in(OrderStatus::partially_completed);
  EXPECT_EQ(why_not_regenerate(order, r.items, 0), Reason::invalid_status);
  EXPECT_EQ(why_not_regenerate(order, r.items, 1), Reason::invalid_status);
  EXPECT_TRUE(can_regenerate(order, r.items, r.items[2]));
}

TEST(ItemRules, NoRegenerationOnceRetentionRemovedTheFiles) {
  Records r;
  r.add(ItemType::chunk, 0, ItemStatus::completed);
  auto order = order_in(OrderStatus::completed);
  order.files_removed = true;
  EXPECT_FALSE(can_regenerate(order, r.items, r.items[0]));
  EXPECT_EQ(why_not_regenerate(order, r.items, 0), Reason::input_expired);
}

// ---- the flags of a whole order ----

TEST(ItemRules, FlagsOfAWholeOrderAgreeWithTheSingleItemRules) {
  Records r;
  r.add(ItemType::chunk, 0, ItemStatus::completed);
  r.add(ItemType::chunk, 1, ItemStatus::failed, 1);
  r.add(ItemType::retry, 1, ItemStatus::failed, 2);
  r.add(ItemType::chunk, 2, ItemStatus::policy_flagged);
  r.add(ItemType::regeneration, 0, ItemStatus::completed);
  r.add(ItemType::chunk, 3, ItemStatus::failed);
  r.add(ItemType::retry, 3, ItemStatus::pending, 2);
  for (auto status : {OrderStatus::partially_completed, OrderStatus::completed, OrderStatus::in_progress}) {
    const auto order = order_in(status);
    auto items = r.items;
    apply_item_flags(order, items);
    for (std::size_t i = 0; i < items.size(); ++i) {
      EXPECT_EQ(items[i].can_retry, can_retry(order, r.items, r.items[i])) << i << " " << to_string(status);
      EXPECT_EQ(items[i].can_regenerate, can_regenerate(order, r.items, r.items[i])) << i << " " << to_string(status);
    }
  }
  auto items = r.items;
  apply_item_flags(order_in(OrderStatus::partially_completed), items);
  const std::vector<bool> retry = {false, false, true, true, false, false, false};
  const std::vector<bool> regenerate = {false, false, false, false, true, false, false};
  for (std::size_t i = 0; i < items.size(); ++i) {
    EXPECT_EQ(items[i].can_retry, retry[i]) << i;
    EXPECT_EQ(items[i].can_regenerate, regenerate[i]) << i;
  }
}

}  // namespace
}  // namespace mediagen::orders
