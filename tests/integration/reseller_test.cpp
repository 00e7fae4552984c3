// Gift codes on the real PostgreSQL (reliability anchors T7): racing cancels, cancel against
// redeem, the cancel window on an injected clock, and the money of it all in the ledger.
#include <gtest/gtest.h>

#include <atomic>
#include <barrier>
#include <memory>
#include <thread>
#include <vector>

#include "invariants.hpp"
#include "mediagen/account/users.hpp"
#include "mediagen/db/pg.hpp"
#include "mediagen/reseller/gift_codes.hpp"
#include "stepped_clock.hpp"
#include "support.hpp"

namespace mediagen::test {
namespace {

using namespace std::chrono_literals;
using reseller::GiftCodeStatus;

constexpr std::int64_t kInitialBalance = 1'000'000;

class ResellerTest : public MigratedTest {
 protected:
  void SetUp() override {
    MigratedTest::SetUp();
    if (HasFatalFailure()) return;
    db.emplace(db_url, &counters);
    seller = account::create_user(*db, {"seller@example.com", "Seller", Locale::en, {}}).id;
    buyer = account::create_user(*db, {"buyer@example.com", "Buyer", Locale::en, {}}).id;
    other = account::create_user(*db, {"other@example.com", "Other", Locale::en, {}}).id;
    const auto profile = reseller::enable_reseller(
        *db, {.user = seller, .discount_bps = 1500, .cancel_window_minutes = 30, .add_balance = kInitialBalance});
    ASSERT_TRUE(profile);
    ASSERT_EQ(profile->balance, kInitialBalance);
  }

  void TearDown() override {
    if (db) expect_invariants(db_url);
    db.reset();
    MigratedTest::TearDown();
  }

  reseller::GiftCode issue(std::int64_t nominal = 10'000, std::optional<TimePoint> activatable_at = std::nullopt) {
    auto issued = reseller::issue_code(*db, cipher, clock, seller, {.nominal = nominal, .activatable_at = activatable_at});
    EXPECT_TRUE(issued);
    return issued ? *issued : reseller::GiftCode{};
  }

  std::int64_t reseller_balance() { return reseller::find_reseller(*db, seller)->balance; }
  std::string sql(const std::string& statement) { return query_value(db_url, statement); }

  // The reseller balance is the initial balance less the cost of every live (active or redeemed) code.
  void expect_balance_matches_codes() {
    const auto live_cost = sql("SELECT coalesce(sum(cost), 0) FROM gift_codes WHERE status <> 'cancelled'");
    EXPECT_EQ(reseller_balance(), kInitialBalance - std::stoll(live_cost));
  }

  std::optional<db::Db> db;
  SteppedClock clock{TimePoint{std::chrono::seconds{1'790'000'000}}};
  reseller::CodeCipher cipher{"integration secret"};
  UserId seller, buyer, other;
};

TEST_F(ResellerTest, IssueTakesTheDiscountedCostAndHoldsTheNominal) {
  const auto code = issue(10'000);
  EXPECT_EQ(code.cost, 8'500);
  EXPECT_EQ(code.discount_bps, 1500);
  EXPECT_EQ(code.status, GiftCodeStatus::active);
  ASSERT_TRUE(code.code);
  EXPECT_EQ(reseller::mask_gift_code(*code.code), code.code_masked);
  EXPECT_EQ(reseller_balance(), kInitialBalance - 8'500);
  EXPECT_EQ(sql("SELECT balance FROM ledger_accounts WHERE kind = 'gift_outstanding'"), "10000");
  // Stored sealed and hashed: the full code is nowhere in the row.
  EXPECT_EQ(sql("SELECT count(*) FROM gift_codes WHERE code_sealed LIKE '%" + *code.code + "%'"), "0");
  const auto shown = reseller::find_code(*db, cipher, seller, GiftCodeId::parse(code.uuid));
  ASSERT_TRUE(shown);
  EXPECT_EQ(shown->code, code.code);
}

TEST_F(ResellerTest, RefusalsWriteNothing) {
  const auto entries = sql("SELECT count(*) FROM ledger_entries");
  auto poor = reseller::issue_code(*db, cipher, clock, seller, {.nominal = kInitialBalance * 2});
  ASSERT_FALSE(poor);
  EXPECT_EQ(poor.error().reason, Reason::insufficient_balance);
  EXPECT_EQ(poor.error().status, 402);
  auto stranger = reseller::issue_code(*db, cipher, clock, buyer, {.nominal = 100});
  ASSERT_FALSE(stranger);
  EXPECT_EQ(stranger.error().reason, Reason::not_reseller);
  auto currency = reseller::issue_code(*db, cipher, clock, seller, {.nominal = 100, .currency = "XXX"});
  ASSERT_FALSE(currency);
  EXPECT_EQ(currency.error().status, 422);
  EXPECT_EQ(sql("SELECT count(*) FROM ledger_entries"), entries);
  EXPECT_EQ(sql("SELECT count(*) FROM gift_codes"), "0");
}

TEST_F(ResellerTest, AnotherResellersOrAMissingCodeIsNotFound) {
  const auto code = issue();
  ASSERT_TRUE(reseller::enable_reseller(*db, {.user = other}));
  for (const std::string& id : {code.uuid, std::string("00000000-0000-4000-8000-000000000000"), std::string("nope")}) {
    auto shown = reseller::find_code(*db, cipher, other, GiftCodeId::parse(id));
    ASSERT_FALSE(shown);
    EXPECT_EQ(shown.error().reason, Reason::gift_code_not_found);
    auto cancelled = reseller::cancel_code(*db, cipher, clock, other, GiftCodeId::parse(id));
    ASSERT_FALSE(cancelled);
    EXPECT_EQ(cancelled.error().reason, Reason::gift_code_not_found);
  }
}

TEST_F(ResellerTest, FiftyParallelCancelsHaveOneWinner) {
  const auto code = issue();
  constexpr int kThreads = 50;
  std::vector<std::unique_ptr<db::Db>> conns;
  for (int i = 0; i < kThreads; ++i) conns.push_back(std::make_unique<db::Db>(db_url, &counters));
  std::barrier start(kThreads);
  std::atomic<int> won{0}, not_cancellable{0}, other_answer{0};
  std::vector<std::thread> threads;
  for (int i = 0; i < kThreads; ++i) {
    threads.emplace_back([&, i] {
      start.arrive_and_wait();
      const auto r = reseller::cancel_code(*conns[i], cipher, clock, seller, GiftCodeId::parse(code.uuid));
      if (r) ++won;
      else if (r.error().reason == Reason::gift_code_not_cancellable && r.error().status == 409) ++not_cancellable;
      else ++other_answer;
    });
  }
  for (auto& t : threads) t.join();
  EXPECT_EQ(won.load(), 1);
  EXPECT_EQ(not_cancellable.load(), kThreads - 1);
  EXPECT_EQ(other_answer.load(), 0);
  EXPECT_EQ(reseller_balance(), kInitialBalance);
  EXPECT_EQ(sql("SELECT count(*) FROM ledger_txns WHERE kind = 'gift_code_cancel'"), "1");
  expect_balance_matches_codes();
}

TEST_F(ResellerTest, CancelAgainstRedeemHasExactlyOneWinnerEachTime) {
  constexpr int kRounds = 100;
  db::Db canceller(db_url, &counters), redeemer(db_url, &counters);
  int cancels = 0, redeems = 0;
  for (int round = 0; round < kRounds; ++round) {
    const auto code = issue(1'000);
    std::barrier start(2);
    bool cancelled = false;
    reseller::Redeemed redeemed;
    std::thread a([&] {
      start.arrive_and_wait();
      cancelled = static_cast<bool>(reseller::cancel_code(canceller, cipher, clock, seller, GiftCodeId::parse(code.uuid)));
    });
    std::thread b([&] {
      start.arrive_and_wait();
      redeemed = reseller::redeem_code(redeemer, clock, buyer, *code.code);
    });
    a.join();
    b.join();
    const bool redeem_won = redeemed.refusal == reseller::RedeemRefusal::none;
    ASSERT_NE(cancelled, redeem_won) << "round " << round;
    if (!redeem_won) {
      EXPECT_EQ(redeemed.refusal, reseller::RedeemRefusal::cancelled);
    }
    cancels += cancelled ? 1 : 0;
    redeems += redeem_won ? 1 : 0;
  }
  EXPECT_EQ(cancels + redeems, kRounds);
  const auto wallet = sql("SELECT coalesce(sum(balance), 0) FROM ledger_accounts WHERE kind = 'wallet' AND user_id = " +
                          std::to_string(buyer.value));
  EXPECT_EQ(std::stoll(wallet), redeems * 1'000);
  EXPECT_EQ(sql("SELECT balance FROM ledger_accounts WHERE kind = 'gift_outstanding'"), "0");
  expect_balance_matches_codes();
}

TEST_F(ResellerTest, RedeemIsExactlyOnceAndHonoursActivatableAt) {
  const auto code = issue(2'000, clock.now() + 1h);
  auto early = reseller::redeem_code(*db, clock, buyer, *code.code);
  EXPECT_EQ(early.refusal, reseller::RedeemRefusal::not_yet_active);
  clock.advance(1h);
  auto first = reseller::redeem_code(*db, clock, buyer, *code.code);
  ASSERT_EQ(first.refusal, reseller::RedeemRefusal::none);
  EXPECT_EQ(first.wallet_balance, 2'000);
  auto again = reseller::redeem_code(*db, clock, other, *code.code);
  EXPECT_EQ(again.refusal, reseller::RedeemRefusal::redeemed);
  EXPECT_EQ(reseller::redeem_code(*db, clock, buyer, "LUM-AAAA-AAAA-AAAA").refusal, reseller::RedeemRefusal::not_found);
  EXPECT_EQ(reseller::redeem_code(*db, clock, buyer, "garbage").refusal, reseller::RedeemRefusal::malformed);
  auto cancel = reseller::cancel_code(*db, cipher, clock, seller, GiftCodeId::parse(code.uuid));
  ASSERT_FALSE(cancel);
  EXPECT_EQ(cancel.error().reason, Reason::gift_code_not_cancellable);
  // The reseller sees that it was redeemed, never by whom.
  const auto shown = reseller::find_code(*db, cipher, seller, GiftCodeId::parse(code.uuid));
  ASSERT_TRUE(shown);
  EXPECT_EQ(shown->status, GiftCodeStatus::redeemed);
  EXPECT_EQ(reseller::gift_code_json(*shown, TimeZone::utc()).find("redeemed_by"), std::string::npos);
  expect_balance_matches_codes();
}

TEST_F(ResellerTest, CancelOneSecondPastTheWindowIsRefused) {
  const auto inside = issue();
  const auto outside = issue();
  clock.advance(30min);  // exactly at the end of the window: still inside
  ASSERT_TRUE(reseller::cancel_code(*db, cipher, clock, seller, GiftCodeId::parse(inside.uuid)));
  clock.advance(1s);
  auto late = reseller::cancel_code(*db, cipher, clock, seller, GiftCodeId::parse(outside.uuid));
  ASSERT_FALSE(late);
  EXPECT_EQ(late.error().reason, Reason::gift_code_cancel_window_expired);
  EXPECT_EQ(late.error().status, 409);
  auto twice = reseller::cancel_code(*db, cipher, clock, seller, GiftCodeId::parse(inside.uuid));
  ASSERT_FALSE(twice);
  EXPECT_EQ(twice.error().reason, Reason::gift_code_not_cancellable);
  expect_balance_matches_codes();
}

TEST_F(ResellerTest, ListFiltersByStatusAndStatsCountThePeriod) {
  const auto a = issue(1'000);
  issue(2'000);
  ASSERT_TRUE(reseller::cancel_code(*db, cipher, clock, seller, GiftCodeId::parse(a.uuid)));
  auto all = reseller::list_codes(*db, cipher, seller, std::nullopt, 0, 10);
  ASSERT_TRUE(all);
  EXPECT_EQ(all->total, 2);
  auto cancelled = reseller::list_codes(*db, cipher, seller, GiftCodeStatus::cancelled, 0, 10);
  ASSERT_TRUE(cancelled);
  ASSERT_EQ(cancelled->items.size(), 1u);
  EXPECT_EQ(cancelled->items[0].uuid, a.uuid);
  auto stats = reseller::reseller_stats(*db, seller, clock.now() - 1h, clock.now() + 1h);
  ASSERT_TRUE(stats);
  ASSERT_EQ(stats->assets.size(), 1u);
  EXPECT_EQ(stats->assets[0].issued, 2);
  EXPECT_EQ(stats->assets[0].cancelled, 1);
  EXPECT_EQ(stats->assets[0].nominal_issued, 3'000);
  EXPECT_EQ(stats->assets[0].cost_cancelled, 850);
}

}  // namespace
}  // namespace mediagen::test
