// The explicit-confirmation mode on real PostgreSQL (spec 7.1): orders made by create_order with
// a clock the test steers. A quote confirmed within its five minutes makes the order at exactly
// the quoted price; one second late it is 409 quote_mismatch and nothing is written; a spent
// quote is forgotten by the janitor's step only a day later.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "mediagen/billing/subscriptions.hpp"
#include "mediagen/orders/limits.hpp"
#include "mediagen/orders/create.hpp"
#include "mediagen/orders/queue.hpp"
#include "template_orders_fixture.hpp"

namespace mediagen::test {
namespace {

using json = nlohmann::json;
using namespace std::chrono_literals;

constexpr std::string_view kText = "A sentence paid for from the balance.";

class TopupQuoteTest : public TemplateOrdersTest {
 protected:
  void SetUp() override {
    TemplateOrdersTest::SetUp();
    if (HasFatalFailure()) return;
    quotes = &signer;
    billing::set_confirm_mode(*db, true);
  }

  Result<orders::OrderWritten> create(const json& extra = json::object()) { return create_with(kText, extra); }

  // The 402's quote: its token and price.
  std::pair<std::string, std::int64_t> quote() {
    auto r = create();
    EXPECT_FALSE(r);
    if (r) return {};
    EXPECT_EQ(r.error().status, 402);
    EXPECT_EQ(r.error().reason, Reason::payg_topup_required);
    std::string token;
    std::int64_t price = -1;
    std::optional<TimePoint> expires;
    for (const auto& [name, v] : r.error().extra) {
      if (name == "quote_token") token = std::get<std::string>(v);
      if (name == "topup_price") price = std::get<std::int64_t>(v);
      if (name == "quote_expires_at") expires = std::get<TimePoint>(v);
    }
    EXPECT_EQ(expires, std::optional<TimePoint>(clock.now() + orders::QuoteSigner::kLifetime));
    return {token, price};
  }

  Result<orders::OrderWritten> confirm(const std::string& token) {
    return create({{"confirm_payg_topup", true}, {"quote_token", token}});
  }

  std::string snapshot() {
    return value("SELECT (SELECT count(*) FROM ledger_entries) || '|' || (SELECT sum(balance) FROM ledger_accounts)"
                 " || '|' || (SELECT count(*) FROM orders) || '|' || (SELECT count(*) FROM topup_quote_uses)");
  }

  const orders::QuoteSigner signer{"integration secret"};
};

TEST_F(TopupQuoteTest, AQuoteConfirmedWithinItsLifetimeChargesExactlyItsPrice) {
  const auto [token, price] = quote();
  ASSERT_GT(price, 0);
  clock.advance(299s);
  const std::string wallet_before = value("SELECT balance FROM ledger_accounts WHERE kind = 'wallet' AND user_id = " +
                                          std::to_string(user.value));
  auto made = confirm(token);
  ASSERT_TRUE(made) << to_string(made.error().reason);
  EXPECT_EQ(made->order.price_units, price);
  EXPECT_EQ(std::stoll(wallet_before) - price,
            std::stoll(value("SELECT balance FROM ledger_accounts WHERE kind = 'wallet' AND user_id = " +
                             std::to_string(user.value))));
  EXPECT_EQ(value("SELECT count(*) FROM topup_quote_uses WHERE order_id = '" +
                  made->order.id + "'"),
            "1");
}

TEST_F(TopupQuoteTest, AQuotePastItsLifetimeIsAMismatchThatWritesNothing) {
  const auto [token, price] = quote();
  clock.advance(300s);
  const std::string before = snapshot();
  for (int i = 0; i < 2; ++i) {
    auto r = confirm(token);
    ASSERT_FALSE(r);
    EXPECT_EQ(r.error().status, 409);
    EXPECT_EQ(r.error().reason, Reason::quote_mismatch);
  }
  EXPECT_EQ(snapshot(), before);
  // A fresh quote of the same price goes through.
  const auto [fresh, fresh_price] = quote();
  EXPECT_EQ(fresh_price, price);
  EXPECT_TRUE(confirm(fresh));
}

TEST_F(TopupQuoteTest, WithTheModeOffNeitherFieldMatters) {
  billing::set_confirm_mode(*db, false);
  EXPECT_TRUE(create());
  EXPECT_TRUE(create({{"confirm_payg_topup", true}, {"quote_token", "q1.1.2.3"}}));
  EXPECT_EQ(value("SELECT count(*) FROM topup_quote_uses"), "0");
}

TEST_F(TopupQuoteTest, SpentQuotesAreForgottenOnlyAfterADay) {
  ASSERT_TRUE(confirm(quote().first));
  ASSERT_TRUE(confirm(quote().first));
  query_value(db_url, "UPDATE topup_quote_uses SET used_at = now() - interval '25 hours'"
                      " WHERE nonce = (SELECT min(nonce) FROM topup_quote_uses)");
  orders::WorkQueue queue(*db);
  EXPECT_EQ(queue.forget_spent_quotes(24h), 1);
  EXPECT_EQ(value("SELECT count(*) FROM topup_quote_uses"), "1");
  EXPECT_EQ(queue.forget_spent_quotes(24h), 0);
}

}  // namespace
}  // namespace mediagen::test
