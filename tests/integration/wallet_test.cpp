// The wallet switch and the account's wallet and ledger listings (spec 4.6), against an order's
// money posted the way the orders service posts it (orders/order_money.hpp).
#include <gtest/gtest.h>

#include <limits>
#include <numeric>

#include "mediagen/account/users.hpp"
#include "mediagen/billing/ledger.hpp"
#include "mediagen/billing/wallet.hpp"
#include "mediagen/core/uuid.hpp"
#include "mediagen/db/pg.hpp"
#include "mediagen/db/transact.hpp"
#include "mediagen/orders/order.hpp"
#include "support.hpp"

namespace mediagen::test {
namespace {

using billing::LedgerFilter;
using billing::LedgerPage;
using orders::Amounts;

class WalletTest : public MigratedTest {
 protected:
  void SetUp() override {
    MigratedTest::SetUp();
    if (HasFatalFailure()) return;
    db.emplace(db_url, &counters);
    alice = account::create_user(*db, {"alice@example.com", "Alice", Locale::en, MinorUnits{10'000}}).id;
    bob = account::create_user(*db, {"bob@example.com", "Bob", Locale::en, MinorUnits{500}}).id;
    db::transact(*db, [&](db::Tx& tx) {
      money = billing::default_asset(*db, tx).id;
      tokens = billing::token_asset(*db, tx);
    });
    grant_quota(alice, 100);
  }

  void TearDown() override {
    db.reset();
    MigratedTest::TearDown();
  }

  void grant_quota(UserId user, std::int64_t amount) {
    db::transact(*db, [&](db::Tx& tx) {
      billing::post(*db, tx,
                    {.kind = "quota_grant", .reference = random_uuid(), .user = user,
                     .legs = {{billing::Account::platform(billing::AccountKind::quota_funding, tokens),
                               billing::Account::quota(user, tokens), amount}}});
    });
  }

  orders::OrderAccounts order_of(UserId user) { return {user, random_uuid(), money, tokens}; }

  // The life of one order: created (40 tokens of quota and 300 minor locked), a chunk charged,
  // a surcharged retry locked and, once it failed, refunded, a second surcharge locked and
  // charged, then cancelled (what is still held goes back).
  void order_life(const orders::OrderAccounts& o, const std::string& chunk, const std::string& retry_a,
                  const std::string& retry_b) {
    db::transact(*db, [&](db::Tx& tx) { orders::lock_order(*db, tx, o, {.quota_tokens = 40, .minor = 300}); });
    db::transact(*db, [&](db::Tx& tx) { orders::charge_item(*db, tx, o, chunk, {.quota_tokens = 20, .minor = 100}); });
    db::transact(*db, [&](db::Tx& tx) { orders::lock_item(*db, tx, o, retry_a, {.minor = 70}); });
    db::transact(*db, [&](db::Tx& tx) { orders::refund_item(*db, tx, o, retry_a, {.minor = 70}); });
    db::transact(*db, [&](db::Tx& tx) { orders::lock_item(*db, tx, o, retry_b, {.minor = 50}); });
    db::transact(*db, [&](db::Tx& tx) { orders::charge_item(*db, tx, o, retry_b, {.minor = 50}); });
    db::transact(*db, [&](db::Tx& tx) { orders::release_order(*db, tx, o); });
  }

  LedgerPage ledger(UserId user, LedgerFilter filter = {}) { return billing::list_ledger(*db, user, filter); }

  std::vector<std::string> kinds(const LedgerPage& page) {
    std::vector<std::string> out;
    for (const auto& t : page.items) out.push_back(t.kind);
    return out;
  }

  std::int64_t wallet_balance(UserId user) {
    for (const auto& w : billing::list_wallets(*db, user)) {
      if (w.kind == billing::WalletKind::money && w.is_default) return w.balance;
    }
    ADD_FAILURE() << "no platform-currency wallet";
    return 0;
  }

  std::optional<db::Db> db;
  UserId alice, bob;
  AssetId money, tokens;
};

TEST_F(WalletTest, TheSwitchIsOffUntilTheOperatorTurnsItOn) {
  EXPECT_FALSE(billing::wallet_enabled(*db, alice));
  EXPECT_EQ(billing::set_wallet_enabled(*db, alice, true), std::optional<bool>(true));
  EXPECT_TRUE(billing::wallet_enabled(*db, alice));
  EXPECT_FALSE(billing::wallet_enabled(*db, bob)) << "the switch is per account";
  EXPECT_EQ(billing::set_wallet_enabled(*db, alice, false), std::optional<bool>(false));
  EXPECT_FALSE(billing::wallet_enabled(*db, alice));
  EXPECT_EQ(billing::set_wallet_enabled(*db, UserId{999'999}, true), std::nullopt);
  EXPECT_FALSE(billing::wallet_enabled(*db, UserId{999'999}));
}

TEST_F(WalletTest, WalletsShowTheBalanceAndWhatOpenOrdersHold) {
  const auto o = order_of(alice);
  db::transact(*db, [&](db::Tx& tx) { orders::lock_order(*db, tx, o, {.quota_tokens = 40, .minor = 300}); });
  const auto wallets = billing::list_wallets(*db, alice);
  ASSERT_EQ(wallets.size(), 2u);
  EXPECT_EQ(wallets[0].kind, billing::WalletKind::money);
  EXPECT_TRUE(wallets[0].is_default);
  EXPECT_EQ(wallets[0].asset.code, "USD");
  EXPECT_EQ(wallets[0].asset.precision, 2);
  EXPECT_EQ(wallets[0].balance, 9'700);
  EXPECT_EQ(wallets[0].locked, 300);
  EXPECT_EQ(wallets[1].kind, billing::WalletKind::quota);
  EXPECT_EQ(wallets[1].asset.code, "TOKEN");
  EXPECT_EQ(wallets[1].balance, 60);
  EXPECT_EQ(wallets[1].locked, 40);
  // Released, nothing is held any more.
  db::transact(*db, [&](db::Tx& tx) { orders::release_order(*db, tx, o); });
  const auto after = billing::list_wallets(*db, alice);
  EXPECT_EQ(after[0].balance, 10'000);
  EXPECT_EQ(after[0].locked, 0);
  EXPECT_EQ(after[1].balance, 100);
  EXPECT_EQ(after[1].locked, 0);
  // An account that never had quota still has both wallets, at zero.
  const auto bobs = billing::list_wallets(*db, bob);
  ASSERT_EQ(bobs.size(), 2u);
  EXPECT_EQ(bobs[0].balance, 500);
  EXPECT_EQ(bobs[1].balance, 0);
}

TEST_F(WalletTest, AnOrdersTransactionsSumToTheWalletsChange) {
  const auto o = order_of(alice);
  const std::string chunk = random_uuid(), retry_a = random_uuid(), retry_b = random_uuid();
  const std::int64_t before = wallet_balance(alice);
  order_life(o, chunk, retry_a, retry_b);
  const std::int64_t change = wallet_balance(alice) - before;
  EXPECT_EQ(change, -150) << "the charged chunk and the charged surcharge";

  const auto page = ledger(alice, {.order_id = o.order_id});
  EXPECT_EQ(page.total, 7);
  EXPECT_EQ(kinds(page), (std::vector<std::string>{"order_release", "chunk_charge", "item_lock", "item_refund",
                                                    "item_lock", "chunk_charge", "order_lock"}));
  const std::int64_t sum = std::accumulate(page.items.begin(), page.items.end(), std::int64_t{0},
                                           [](std::int64_t s, const auto& t) { return s + t.wallet_amount; });
  EXPECT_EQ(sum, change);
  const std::int64_t quota = std::accumulate(page.items.begin(), page.items.end(), std::int64_t{0},
                                             [](std::int64_t s, const auto& t) { return s + t.quota_amount; });
  EXPECT_EQ(quota, -20);

  // Each record names its order and item; a charge moves only the order's escrow, never the
  // platform's accounts, which are not the account's business.
  const auto& lock = page.items.back();
  EXPECT_EQ(lock.order_id, o.order_id);
  EXPECT_EQ(lock.item_id, std::nullopt);
  EXPECT_EQ(lock.wallet_amount, -300);
  EXPECT_EQ(lock.quota_amount, -40);
  ASSERT_EQ(lock.movements.size(), 4u);
  EXPECT_EQ(lock.movements[0].account, "quota");
  EXPECT_EQ(lock.movements[0].amount, -40);
  EXPECT_EQ(lock.movements[0].balance_after, 60);
  EXPECT_EQ(lock.movements[1].account, "quota_escrow");
  EXPECT_EQ(lock.movements[2].account, "wallet");
  EXPECT_EQ(lock.movements[2].balance_after, 9'700);
  EXPECT_EQ(lock.movements[3].account, "escrow");
  EXPECT_EQ(lock.movements[3].amount, 300);
  const auto& charge = page.items[page.items.size() - 2];
  EXPECT_EQ(charge.item_id, chunk);
  EXPECT_EQ(charge.wallet_amount, 0);
  ASSERT_EQ(charge.movements.size(), 2u);
  EXPECT_EQ(charge.movements[0].account, "quota_escrow");
  EXPECT_EQ(charge.movements[1].account, "escrow");
  EXPECT_EQ(charge.movements[1].amount, -100);
  EXPECT_EQ(page.items[2].item_id, retry_b);
  EXPECT_EQ(page.items[3].item_id, retry_a);
  EXPECT_EQ(page.items[3].wallet_amount, 70);
}

TEST_F(WalletTest, AnAccountSeesOnlyItsOwnTransactions) {
  order_life(order_of(alice), random_uuid(), random_uuid(), random_uuid());
  const auto bobs = ledger(bob);
  EXPECT_EQ(kinds(bobs), (std::vector<std::string>{"admin_adjustment"}));
  EXPECT_EQ(bobs.items[0].wallet_amount, 500);
  EXPECT_EQ(ledger(bob, {.order_id = random_uuid()}).total, 0);
}

TEST_F(WalletTest, FiltersByKindOrderAndTime) {
  const auto first = order_of(alice), second = order_of(alice);
  order_life(first, random_uuid(), random_uuid(), random_uuid());
  db::transact(*db, [&](db::Tx& tx) { orders::lock_order(*db, tx, second, {.minor = 10}); });
  // initial balance, quota grant, 7 of the first order, 1 of the second
  EXPECT_EQ(ledger(alice).total, 10);
  EXPECT_EQ(kinds(ledger(alice, {.kinds = {"order_lock"}})), (std::vector<std::string>{"order_lock", "order_lock"}));
  EXPECT_EQ(ledger(alice, {.kinds = {"item_lock", "item_refund"}}).total, 3);
  EXPECT_EQ(ledger(alice, {.kinds = {"order_lock"}, .order_id = second.order_id}).total, 1);
  const TimePoint now = std::chrono::system_clock::now();
  EXPECT_EQ(ledger(alice, {.from = now + std::chrono::hours(1)}).total, 0);
  EXPECT_EQ(ledger(alice, {.to = now - std::chrono::hours(1)}).total, 0);
  EXPECT_EQ(ledger(alice, {.from = now - std::chrono::hours(1), .to = now + std::chrono::hours(1)}).total, 10);
  // `to` is exclusive, `from` inclusive: the newest transaction's own second splits them.
  const auto newest = ledger(alice).items.front().created_at;
  const auto before = ledger(alice, {.to = newest}).total;
  const auto from_it = ledger(alice, {.from = newest}).total;
  EXPECT_EQ(before + from_it, 10);
  EXPECT_GE(from_it, 1);
}

TEST_F(WalletTest, PagesNewestFirstWithoutOverlap) {
  order_life(order_of(alice), random_uuid(), random_uuid(), random_uuid());
  const auto all = ledger(alice, {.per_page = 100});
  ASSERT_EQ(all.total, 9);
  std::vector<std::int64_t> ids;
  for (std::int64_t page = 1; page <= 5; ++page) {
    const auto p = ledger(alice, {.page = page, .per_page = 2});
    EXPECT_EQ(p.total, 9);
    EXPECT_EQ(p.last_page(), 5);
    EXPECT_EQ(p.items.size(), page < 5 ? 2u : 1u);
    for (const auto& t : p.items) ids.push_back(t.id);
  }
  ASSERT_EQ(ids.size(), 9u);
  for (std::size_t i = 0; i < ids.size(); ++i) EXPECT_EQ(ids[i], all.items[i].id);
  for (std::size_t i = 1; i < all.items.size(); ++i) {
    EXPECT_GE(all.items[i - 1].created_at, all.items[i].created_at);
  }
  EXPECT_TRUE(ledger(alice, {.page = 6, .per_page = 2}).items.empty());
  EXPECT_TRUE(ledger(alice, {.page = std::numeric_limits<std::int64_t>::max(), .per_page = 100}).items.empty());
}

}  // namespace
}  // namespace mediagen::test
