// The policy cooldown on real PostgreSQL (spec 8.1 policy_cooldown_active): orders made by
// create_order, flagged or completed through the work queue, the ladder judged by a clock the
// test steers. Five consecutive policy-blocked orders pause creation for 300 s, the next five for
// 600 s, then 900 s, and 900 s again; a cleanly completed order starts over; a refused create
// writes nothing.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "mediagen/orders/order.hpp"
#include "mediagen/orders/create.hpp"
#include "mediagen/orders/actions.hpp"
#include "mediagen/orders/queue.hpp"
#include "template_orders_fixture.hpp"

namespace mediagen::test {
namespace {

using json = nlohmann::json;
using namespace std::chrono_literals;

class PolicyCooldownTest : public TemplateOrdersTest {
 protected:
  void SetUp() override {
    TemplateOrdersTest::SetUp();
    if (HasFatalFailure()) return;
    queue.emplace(*db, orders::QueueOptions{.cooldown = {.ladder = {300s, 600s, 900s}, .clock = &clock}});
  }

  void TearDown() override {
    queue.reset();
    WorkersTest::TearDown();
  }

  Result<orders::OrderWritten> try_create() { return create_with("Hello there."); }

  std::string create() { return created("Hello there."); }

  // Every waiting chunk (those of the order just made) flagged by the content policy.
  void flag_waiting() {
    while (auto chunk = queue->claim(30s)) {
      ASSERT_TRUE(queue->fail(chunk->item_id, chunk->lease_token, orders::FailureKind::policy, "content_policy").applied);
    }
  }

  void flagged_orders(int n) {
    for (int i = 0; i < n; ++i) {
      const auto id = create();
      ASSERT_FALSE(id.empty());
      flag_waiting();
      ASSERT_EQ(order_status(id), "failed");
    }
  }

  // A fresh order's chunk made and the order stitched: completed with nothing flagged.
  // A fresh order's chunk made and the order stitched: completed with nothing flagged.
  std::string completed_order() {
    const auto id = create();
    complete_one_chunk_order(*queue, id);
    return id;
  }

  std::string cooldown_field(const std::string& field) {
    return value("SELECT " + field + " FROM policy_cooldowns WHERE user_id = " + std::to_string(user.value));
  }

  std::string snapshot() {
    return value("SELECT (SELECT count(*) FROM ledger_entries) || '|' || (SELECT count(*) FROM ledger_txns) || '|' ||"
                 " (SELECT sum(balance) FROM ledger_accounts) || '|' || (SELECT count(*) FROM orders) || '|' ||"
                 " (SELECT count(*) FROM order_items) || '|' || (SELECT count(*) FROM idempotency_keys) || '|' ||"
                 " (SELECT string_agg(streak || ':' || step || ':' || coalesce(blocked_until::text, '-'), ',')"
                 "  FROM policy_cooldowns)");
  }

  // The refusal a create gets now: 429 policy_cooldown_active until `until` (retry_at), with
  // Retry-After; returns retry_after.
  std::int64_t expect_cooldown(std::optional<TimePoint> until = std::nullopt) {
    auto r = try_create();
    EXPECT_FALSE(r);
    if (r) return -1;
    const ApiError& e = r.error();
    EXPECT_EQ(e.status, 429);
    EXPECT_EQ(e.reason, Reason::policy_cooldown_active);
    std::int64_t retry_after = -1;
    std::optional<TimePoint> retry_at;
    for (const auto& [name, v] : e.extra) {
      if (name == "retry_after") retry_after = std::get<std::int64_t>(v);
      if (name == "retry_at") retry_at = std::get<TimePoint>(v);
    }
    EXPECT_TRUE(retry_at);
    if (until) {
      EXPECT_EQ(retry_at, until);
    }
    EXPECT_EQ(e.headers, (std::vector<std::pair<std::string, std::string>>{{"Retry-After", std::to_string(retry_after)}}));
    return retry_after;
  }

  std::optional<orders::WorkQueue> queue;
};

TEST_F(PolicyCooldownTest, FiveFlaggedOrdersAtATimeClimbTheLadderAndStayOnItsLastRung) {
  for (const std::int64_t cooldown : {300, 600, 900, 900}) {
    flagged_orders(4);  // after the last cooldown passed: creation works again
    EXPECT_EQ(cooldown_field("streak"), "4");
    flagged_orders(1);  // four do not block; the fifth does
    EXPECT_EQ(cooldown_field("streak"), "0") << "the cooldown starts the count again";
    const TimePoint until = clock.now() + Seconds{cooldown};

    const std::string before = snapshot();
    EXPECT_EQ(expect_cooldown(until), cooldown);
    EXPECT_EQ(expect_cooldown(until), cooldown) << "the same answer on a repeat";
    EXPECT_EQ(snapshot(), before) << "a refused create writes nothing";

    clock.advance(Seconds{cooldown - 1});
    EXPECT_EQ(expect_cooldown(until), 1);
    clock.advance(999'999us);
    EXPECT_EQ(expect_cooldown(until), 1) << "a part of a second left is a whole second to wait";
    clock.advance(1us);
  }
  EXPECT_EQ(cooldown_field("step"), "3") << "the step stops at the ladder's end";
  completed_order();
  EXPECT_EQ(cooldown_field("streak || ':' || step"), "0:0");
}

TEST_F(PolicyCooldownTest, ACleanCompletedOrderStartsTheCountAndTheLadderAgain) {
  flagged_orders(4);
  completed_order();
  EXPECT_EQ(cooldown_field("streak"), "0");
  flagged_orders(4);
  EXPECT_EQ(cooldown_field("streak"), "4") << "four flagged, one clean, four flagged: no cooldown";
  flagged_orders(1);
  EXPECT_EQ(expect_cooldown(), 300);
  clock.advance(300s);
  flagged_orders(5);
  EXPECT_EQ(expect_cooldown(), 600);
  clock.advance(600s);
  completed_order();  // the ladder starts again from its first rung
  EXPECT_EQ(cooldown_field("streak || ':' || step"), "0:0");
  flagged_orders(5);
  EXPECT_EQ(expect_cooldown(), 300);
}

TEST_F(PolicyCooldownTest, AnOrderCountsOnceHoweverManyOfItsChunksAreFlagged) {
  const auto order = make_order({.texts = {"first part", "second part", "third part"}});
  auto first = queue->claim(30s);
  ASSERT_TRUE(first);
  ASSERT_TRUE(queue->complete(first->item_id, first->lease_token, {.result_path = "orders/x/0.mp3"}).applied);
  flag_waiting();
  EXPECT_EQ(order_status(order.id), "partially_completed");
  EXPECT_EQ(cooldown_field("streak"), "1");
  flagged_orders(3);
  EXPECT_EQ(cooldown_field("streak"), "4");
}

TEST_F(PolicyCooldownTest, OrderRetryIsANewTaskAndWaitsForTheCooldownToo) {
  const auto done = completed_order();
  flagged_orders(5);
  const std::string before = snapshot();
  auto refused = orders::retry_order(*db, caller(), OrderId::parse(done).value(), {}, nullptr);
  ASSERT_FALSE(refused);
  EXPECT_EQ(refused.error().reason, Reason::policy_cooldown_active);
  EXPECT_EQ(snapshot(), before);
  clock.advance(300s);
  auto retried = orders::retry_order(*db, caller(), OrderId::parse(done).value(), {}, nullptr);
  ASSERT_TRUE(retried) << to_string(retried.error().reason);
  flag_waiting();
}

}  // namespace
}  // namespace mediagen::test
