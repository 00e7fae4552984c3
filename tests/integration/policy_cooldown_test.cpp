// The policy cooldown on real PostgreSQL (spec 8.1 policy_cooldown_active): orders made by
// create_order, flagged or completed through the work queue, the ladder judged by a clock the
// test steers. Five consecutive policy-blocked orders pause creation for 300 s, the next five for
// 600 s, then 900 s, and 900 s again; a cleanly completed order starts over; a refused create
// writes nothing.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "mediagen/auth/keys.hpp"
#include "mediagen/orders/orders.hpp"
#include "mediagen/orders/work_queue.hpp"
#include "mediagen/templates/seed.hpp"
#include "mediagen/templates/templates.hpp"
#include "mediagen/voices/catalogue_builder.hpp"
#include "mediagen/voices/voices.hpp"
#include "stepped_clock.hpp"
#include "workers_fixture.hpp"

namespace mediagen::test {
namespace {

using json = nlohmann::json;
using namespace std::chrono_literals;

class PolicyCooldownTest : public WorkersTest {
 protected:
  void SetUp() override {
    WorkersTest::SetUp();
    if (HasFatalFailure()) return;
    const auto catalogue = voices::build_catalogue({{"gmw/en-US", "en-us", "English (America)", "male"}},
                                                   {{"m2", "male2", "male", 0}});
    std::string voice;
    for (const auto& v : catalogue) {
      if (v.service == "provider_a") voice = v.voice_id;
    }
    db::transact(*db, [&](db::Tx& tx) {
      templates::seed_catalogue(*db, tx);
      voices::seed_voices(*db, tx, catalogue);
    });
    auto made = templates::create_template(
        *db, user,
        {{"service_key", "provider_a"},
         {"name", "Narrator"},
         {"config", {{"tts_settings", {{"mode", "mode_v1"}, {"model_id", "a-v3"}, {"voice_id", voice}}}}}});
    ASSERT_TRUE(made);
    template_id = made->id;
    key.emplace(auth::create_key(*db, {.user = user, .scopes = {}, .name = "k", .expires_at = {}, .limits = {}}).key);
    queue.emplace(*db, orders::QueueOptions{.cooldown = {.ladder = {300s, 600s, 900s}, .clock = &clock}});
  }

  void TearDown() override {
    queue.reset();
    WorkersTest::TearDown();
  }

  orders::Caller caller() const { return {*key, TimeZone::utc(), {}, &clock}; }

  Result<orders::OperationReply> try_create() {
    return orders::create_order(*db, caller(), json{{"template_id", template_id}, {"input_text", "Hello there."}},
                                std::nullopt);
  }

  std::string create() {
    auto r = try_create();
    EXPECT_TRUE(r) << (r ? "" : std::string(to_string(r.error().reason)));
    if (!r) return "";
    return json::parse(r->data_json)["id"].get<std::string>();
  }

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
  std::string completed_order() {
    const auto id = create();
    auto chunk = queue->claim(30s);
    EXPECT_TRUE(chunk);
    if (!chunk) return id;
    auto settled = queue->complete(chunk->item_id, chunk->lease_token, {.result_path = "orders/" + id + "/0.mp3"});
    EXPECT_TRUE(settled.stitch);
    if (settled.stitch) {
      EXPECT_TRUE(queue->finish_stitch(*settled.stitch, {.files = {"orders/" + id + "/result.mp3"}}));
    }
    EXPECT_EQ(order_status(id), "completed");
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
    if (retry_at && until) EXPECT_EQ(*retry_at, *until);
    EXPECT_EQ(e.headers, (std::vector<std::pair<std::string, std::string>>{{"Retry-After", std::to_string(retry_after)}}));
    return retry_after;
  }

  // Whole seconds, so that retry_after and retry_at come out exact.
  SteppedClock clock{std::chrono::floor<Seconds>(std::chrono::system_clock::now())};
  std::optional<orders::WorkQueue> queue;
  std::optional<auth::Principal> key;
  std::string template_id;
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
  auto refused = orders::retry_order(*db, caller(), done, json::object(), std::nullopt);
  ASSERT_FALSE(refused);
  EXPECT_EQ(refused.error().reason, Reason::policy_cooldown_active);
  EXPECT_EQ(snapshot(), before);
  clock.advance(300s);
  auto retried = orders::retry_order(*db, caller(), done, json::object(), std::nullopt);
  ASSERT_TRUE(retried) << to_string(retried.error().reason);
  flag_waiting();
}

}  // namespace
}  // namespace mediagen::test
