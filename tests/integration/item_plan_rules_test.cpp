// Item retry and regenerate obey the live plan as a new order does (spec 7.1, 8.1): what they
// take counts against the plan's ceiling on the service (429 limit_exceeded), the quota pays only
// for services the plan entitles, and a service closed to pay-as-you-go takes no money (402
// insufficient_allowance). Every refusal writes nothing.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "mediagen/billing/subscriptions.hpp"
#include "mediagen/orders/order.hpp"
#include "mediagen/orders/items.hpp"
#include "mediagen/orders/queue.hpp"
#include "template_orders_fixture.hpp"

namespace mediagen::test {
namespace {

using json = nlohmann::json;

constexpr std::string_view kText = "Forty characters of text, to be spoken.";  // 39 tokens

class ItemPlanRulesTest : public TemplateOrdersTest {
 protected:
  void SetUp() override {
    TemplateOrdersTest::SetUp();
    if (HasFatalFailure()) return;
    queue.emplace(*db);
  }

  void TearDown() override {
    queue.reset();
    WorkersTest::TearDown();
  }

  void subscribe(std::vector<billing::ServiceLimit> services) {
    const std::string code = "p" + random_hex();
    db::transact(*db, [&](db::Tx& tx) {
      billing::upsert_plan(*db, tx, {.code = code, .name = code, .tokens_per_period = 1000, .services = services});
    });
    billing::grant_subscription(*db, user, code, std::nullopt);
  }

  // A completed one-chunk order and its chunk.
  std::pair<std::string, std::string> completed() {
    const std::string id = created(kText);
    complete_one_chunk_order(*queue, id);
    return {id, value("SELECT id FROM order_items WHERE order_id = '" + id + "'")};
  }

  Result<orders::ItemsQueued> regenerate(const std::pair<std::string, std::string>& order_item,
                                            std::string_view text) {
    auto read = orders::read_item_text(json{{"text", text}}, orders::kMaxItemTextChars);  // as the route reads it
    if (!read) return read.error();
    return orders::regenerate_item(*db, caller(), OrderId::parse(order_item.first).value(),
                                   ItemId::parse(order_item.second).value(), *read);
  }

  // The regeneration made and the result stitched again, so the order is whole once more.
  void run_regeneration(const std::string& order_id) {
    auto chunk = queue->claim(std::chrono::seconds(30));
    ASSERT_TRUE(chunk);
    auto settled = queue->complete(chunk->item_id, chunk->lease_token, {.result_path = "orders/" + order_id + "/r.mp3"});
    ASSERT_TRUE(settled.stitch);
    EXPECT_TRUE(queue->finish_stitch(*settled.stitch, {.files = {"orders/" + order_id + "/2.mp3"}}));
  }

  std::string snapshot() {
    return value("SELECT (SELECT count(*) FROM ledger_entries) || '|' || (SELECT sum(balance) FROM ledger_accounts)"
                 " || '|' || (SELECT count(*) FROM order_items)");
  }

  std::string quota() {
    return value("SELECT balance FROM ledger_accounts WHERE kind = 'quota' AND user_id = " + std::to_string(user.value));
  }

  void expect_refused(const Result<orders::ItemsQueued>& r, int status, Reason reason) {
    ASSERT_FALSE(r);
    EXPECT_EQ(r.error().status, status);
    EXPECT_EQ(r.error().reason, reason);
  }

  std::optional<orders::WorkQueue> queue;
};

TEST_F(ItemPlanRulesTest, ARegenerationPastTheServiceCeilingIsLimitExceeded) {
  subscribe({{.service = "provider_a", .usage_limit = 60}});
  const auto order = completed();  // 39 of the 60
  const std::string before = snapshot();
  for (int i = 0; i < 2; ++i) expect_refused(regenerate(order, kText), 429, Reason::limit_exceeded);  // 78
  EXPECT_EQ(snapshot(), before);
  ASSERT_TRUE(regenerate(order, "Twenty-one characters"));  // 60: exactly the ceiling
  expect_invariants(db_url);  // a completed order with a regeneration running is whole too
  run_regeneration(order.first);
}

TEST_F(ItemPlanRulesTest, AServiceThePlanDoesNotEntitleIsPaidFromTheBalanceOnly) {
  subscribe({{.service = "provider_b"}});
  const auto order = completed();
  EXPECT_EQ(quota(), "1000") << "the order itself took no quota";
  const std::string wallet = value("SELECT balance FROM ledger_accounts WHERE kind = 'wallet' AND user_id = " +
                                   std::to_string(user.value));
  ASSERT_TRUE(regenerate(order, kText));
  run_regeneration(order.first);
  EXPECT_EQ(quota(), "1000") << "nor did its regeneration";
  EXPECT_LT(std::stoll(value("SELECT balance FROM ledger_accounts WHERE kind = 'wallet' AND user_id = " +
                             std::to_string(user.value))),
            std::stoll(wallet));
}

TEST_F(ItemPlanRulesTest, AServiceClosedToPayAsYouGoTakesNoMoneyForARegeneration) {
  subscribe({{.service = "provider_b"}});
  const auto order = completed();
  ASSERT_TRUE(billing::set_service_payg(*db, "provider_a", false));
  const std::string before = snapshot();
  for (int i = 0; i < 2; ++i) expect_refused(regenerate(order, kText), 402, Reason::insufficient_allowance);
  EXPECT_EQ(snapshot(), before);
  // Entitled, the quota covers it and the switch does not matter.
  subscribe({{.service = "provider_a"}});
  ASSERT_TRUE(regenerate(order, kText));
  run_regeneration(order.first);
}

}  // namespace
}  // namespace mediagen::test
