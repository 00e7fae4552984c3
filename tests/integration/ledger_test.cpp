#include <gtest/gtest.h>

#include <atomic>
#include <pqxx/pqxx>
#include <thread>
#include <vector>

#include "mediagen/account/users.hpp"
#include "mediagen/billing/ledger.hpp"
#include "mediagen/billing/subscriptions.hpp"
#include "mediagen/core/transaction_mark.hpp"
#include "mediagen/core/uuid.hpp"
#include "mediagen/db/pg.hpp"
#include "support.hpp"

namespace mediagen::test {
namespace {

using billing::Account;
using billing::AccountKind;

class LedgerTest : public MigratedTest {
 protected:
  void SetUp() override {
    MigratedTest::SetUp();
    if (HasFatalFailure()) return;
    db.emplace(db_url, &counters);
    alice = account::create_user(*db, {"alice@example.com", "Alice", Locale::en, {}}).id;
    bob = account::create_user(*db, {"bob@example.com", "Bob", Locale::ru, {}}).id;
    asset = db::read(*db, [&](db::Tx& tx) { return billing::default_asset(*db, tx); }).id;
  }

  void TearDown() override {
    db.reset();
    MigratedTest::TearDown();
  }

  // Funding <-> wallet, as an operator's adjustment.
  MinorUnits adjust(UserId user, std::int64_t amount) {
    return db::transact(*db, [&](db::Tx& tx) { return billing::adjust_wallet(*db, tx, user, MinorUnits{amount}, "test"); });
  }

  billing::Posted transfer(std::string reference, Account from, Account to, std::int64_t amount) {
    return db::transact(*db, [&](db::Tx& tx) {
      return billing::post(*db, tx, {.kind = "test", .reference = std::move(reference), .legs = {{from, to, amount}}});
    });
  }

  std::int64_t balance(const Account& a) {
    return db::read(*db, [&](db::Tx& tx) { return billing::balance(*db, tx, a); });
  }
  std::int64_t entries() { return std::stoll(query_value(db_url, "SELECT count(*) FROM ledger_entries")); }

  // The double-entry invariants: every transaction balances; every cached balance is the sum
  // of its entries; each account's chain of entries is contiguous.
  void expect_ledger_consistent() {
    EXPECT_EQ(query_value(db_url, "SELECT count(*) FROM (SELECT txn_id FROM ledger_entries GROUP BY txn_id, asset_id"
                                  " HAVING sum(amount) <> 0) x"),
              "0");
    EXPECT_EQ(query_value(db_url, "SELECT count(*) FROM (SELECT a.id FROM ledger_accounts a LEFT JOIN ledger_entries e"
                                  " ON e.account_id = a.id GROUP BY a.id, a.balance, a.version"
                                  " HAVING a.balance <> coalesce(sum(e.amount), 0) OR a.version <> count(e.id)) x"),
              "0");
    EXPECT_EQ(query_value(db_url,
                          "SELECT count(*) FROM (SELECT e.*, lag(new_balance) OVER w AS pb, lag(account_version) OVER w AS pv"
                          " FROM ledger_entries e WINDOW w AS (PARTITION BY account_id ORDER BY account_version)) x"
                          " WHERE prev_balance <> coalesce(pb, 0) OR account_version <> coalesce(pv, 0) + 1"),
              "0");
    EXPECT_EQ(query_value(db_url, "SELECT count(*) FROM ledger_accounts WHERE NOT allow_negative AND balance < 0"), "0");
  }

  std::optional<db::Db> db;
  UserId alice, bob;
  AssetId asset;
};

TEST_F(LedgerTest, KeepsEveryBalanceEqualToTheSumOfItsEntries) {
  EXPECT_EQ(adjust(alice, 1000).value, 1000);
  EXPECT_EQ(adjust(alice, -300).value, 700);
  EXPECT_EQ(adjust(bob, 42).value, 42);
  EXPECT_EQ(balance(Account::wallet(alice, asset)), 700);
  EXPECT_EQ(balance(Account::platform(AccountKind::funding, asset)), -742);
  EXPECT_EQ(entries(), 6) << "each movement is two entries";
  expect_ledger_consistent();
}

TEST_F(LedgerTest, MovesMoneyBetweenAccountsAndCreatesTheDestinationOnFirstUse) {
  adjust(alice, 500);
  const std::string order = random_uuid();
  EXPECT_EQ(transfer("lock-1", Account::wallet(alice, asset), Account::escrow(alice, order, asset), 200),
            billing::Posted::yes);
  EXPECT_EQ(balance(Account::wallet(alice, asset)), 300);
  EXPECT_EQ(balance(Account::escrow(alice, order, asset)), 200);
  EXPECT_EQ(query_value(db_url, "SELECT user_id || '|' || order_id FROM ledger_accounts WHERE kind = 'escrow'"),
            std::to_string(alice.value) + "|" + order);
  expect_ledger_consistent();
}

TEST_F(LedgerTest, PostsATransferOnceHoweverOftenItIsSent) {
  adjust(alice, 500);
  const auto wallet = Account::wallet(alice, asset);
  const auto revenue = Account::platform(AccountKind::revenue, asset);
  EXPECT_EQ(transfer("charge-1", wallet, revenue, 100), billing::Posted::yes);
  const auto rows = entries();
  EXPECT_EQ(transfer("charge-1", wallet, revenue, 100), billing::Posted::already);
  EXPECT_EQ(entries(), rows);
  EXPECT_EQ(balance(wallet), 400);
  EXPECT_EQ(balance(revenue), 100);
  expect_ledger_consistent();
}

TEST_F(LedgerTest, RefusesToGoBelowZeroAndWritesNothing) {
  adjust(alice, 500);
  const auto rows = entries();
  const auto wallet = Account::wallet(alice, asset);
  const auto revenue = Account::platform(AccountKind::revenue, asset);
  EXPECT_THROW(transfer("too-much", wallet, revenue, 501), billing::InsufficientBalance);
  EXPECT_EQ(balance(wallet), 500);
  EXPECT_EQ(entries(), rows);
  EXPECT_EQ(query_value(db_url, "SELECT count(*) FROM ledger_txns WHERE reference = 'too-much'"), "0");
  EXPECT_EQ(transfer("exact", wallet, revenue, 500), billing::Posted::yes) << "down to exactly zero is allowed";
  EXPECT_EQ(balance(wallet), 0);
  expect_ledger_consistent();
}

TEST_F(LedgerTest, RefusesADebitFromAnAccountThatWasNeverUsed) {
  EXPECT_THROW(transfer("x", Account::wallet(bob, asset), Account::platform(AccountKind::revenue, asset), 1),
               billing::InsufficientBalance);
  EXPECT_EQ(entries(), 0);
  EXPECT_EQ(query_value(db_url, "SELECT count(*) FROM ledger_accounts WHERE user_id = " + std::to_string(bob.value)),
            "0");
}

TEST_F(LedgerTest, RollsBackEarlierLegsOfTheSameTransactionOnRefusal) {
  adjust(alice, 100);
  const auto rows = entries();
  const std::string order = random_uuid();
  EXPECT_THROW(db::transact(*db,
                            [&](db::Tx& tx) {
                              billing::post(*db, tx,
                                            {.kind = "test",
                                             .reference = "two-legs",
                                             .legs = {{Account::wallet(alice, asset), Account::escrow(alice, order, asset), 60},
                                                      {Account::wallet(alice, asset), Account::escrow(alice, order, asset), 60}}});
                            }),
               billing::InsufficientBalance);
  EXPECT_EQ(balance(Account::wallet(alice, asset)), 100);
  EXPECT_EQ(entries(), rows);
  expect_ledger_consistent();
}

TEST_F(LedgerTest, SkipsZeroLegsAndRefusesNegativeOnes) {
  adjust(alice, 100);
  const auto rows = entries();
  EXPECT_EQ(transfer("zero", Account::wallet(alice, asset), Account::platform(AccountKind::revenue, asset), 0),
            billing::Posted::yes);
  EXPECT_EQ(entries(), rows);
  EXPECT_EQ(query_value(db_url, "SELECT count(*) FROM ledger_txns WHERE reference = 'zero'"), "0");
  EXPECT_THROW(transfer("neg", Account::wallet(alice, asset), Account::platform(AccountKind::revenue, asset), -5),
               std::invalid_argument);
}

// The record opens with the first leg that moves anything (one round trip for both); the legs
// after it post under the same record, and a repeat of the whole transfer moves nothing.
TEST_F(LedgerTest, OpensTheRecordWithTheFirstMovingLegAndPostsTheRestUnderIt) {
  adjust(alice, 100);
  const std::string order = random_uuid();
  const auto wallet = Account::wallet(alice, asset);
  const auto escrow = Account::escrow(alice, order, asset);
  const billing::Transfer t{.kind = "test",
                            .reference = "zero-then-two",
                            .user = alice,
                            .order_id = order,
                            .legs = {{wallet, escrow, 0}, {wallet, escrow, 30}, {wallet, escrow, 20}}};
  const auto rows = entries();
  EXPECT_EQ(db::transact(*db, [&](db::Tx& tx) { return billing::post(*db, tx, t); }), billing::Posted::yes);
  EXPECT_EQ(entries(), rows + 4);
  EXPECT_EQ(query_value(db_url, "SELECT count(DISTINCT e.txn_id) FROM ledger_entries e JOIN ledger_txns t"
                                " ON t.id = e.txn_id WHERE t.reference = 'zero-then-two'"),
            "1");
  EXPECT_EQ(balance(wallet), 50);
  EXPECT_EQ(balance(escrow), 50);
  EXPECT_EQ(db::transact(*db, [&](db::Tx& tx) { return billing::post(*db, tx, t); }), billing::Posted::already);
  EXPECT_EQ(entries(), rows + 4);
  EXPECT_EQ(balance(wallet), 50);
  expect_ledger_consistent();
}

TEST_F(LedgerTest, ForbidsUpdatingOrDeletingLedgerRows) {
  adjust(alice, 1000);
  for (const char* sql : {"UPDATE ledger_entries SET amount = 1", "DELETE FROM ledger_entries",
                          "UPDATE ledger_txns SET kind = 'x'", "DELETE FROM ledger_txns",
                          "TRUNCATE ledger_entries CASCADE"}) {
    pqxx::connection conn(db_url);
    pqxx::work tx(conn);
    try {
      tx.exec(sql);
      ADD_FAILURE() << sql << " succeeded";
    } catch (const pqxx::sql_error& e) {
      EXPECT_NE(std::string(e.what()).find("append-only"), std::string::npos) << e.what();
    }
  }
  EXPECT_EQ(entries(), 2);
}

TEST_F(LedgerTest, NeverOverdrawsUnderConcurrentDebits) {
  adjust(alice, 1000);
  constexpr int kThreads = 4;
  constexpr int kDebitsEach = 10;
  std::atomic<int> accepted{0}, refused{0}, failed{0};
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&, t] {
      InfraCounters local;
      db::Db own(db_url, &local);
      for (int i = 0; i < kDebitsEach; ++i) {
        try {
          db::transact(own, [&](db::Tx& tx) {
            billing::post(own, tx,
                          {.kind = "test",
                           .reference = std::to_string(t) + "-" + std::to_string(i),
                           .legs = {{Account::wallet(alice, asset), Account::platform(AccountKind::revenue, asset), 50}}});
          });
          accepted.fetch_add(1);
        } catch (const billing::InsufficientBalance&) {
          refused.fetch_add(1);
        } catch (const std::exception&) {
          failed.fetch_add(1);
        }
      }
    });
  }
  for (auto& th : threads) th.join();
  EXPECT_EQ(failed.load(), 0);
  EXPECT_EQ(accepted.load(), 20);
  EXPECT_EQ(refused.load(), kThreads * kDebitsEach - 20);
  EXPECT_EQ(balance(Account::wallet(alice, asset)), 0);
  expect_ledger_consistent();
}

// GET /user's cached profiles are dropped by what the commit listener is told: every user whose
// wallet moved, after the commit and only then; nothing for a rollback or for other accounts.
TEST_F(LedgerTest, TellsTheCommitListenerWhoseWalletMovedOnlyAfterTheCommit) {
  std::vector<std::vector<std::int64_t>> told;
  bool inside_transaction = false;
  db->set_commit_listener([&](const std::vector<std::int64_t>& users) {
    told.push_back(users);
    // Told once the commit released its locks: the listener may reach Redis.
    inside_transaction = inside_transaction || core::TransactionMark::active();
  });

  adjust(alice, 500);
  ASSERT_EQ(told.size(), 1u);
  EXPECT_EQ(told[0], std::vector<std::int64_t>{alice.value});

  // Wallet to wallet: both users, once the transaction committed.
  told.clear();
  db::transact(*db, [&](db::Tx& tx) {
    billing::post(*db, tx, {.kind = "test", .reference = "w2w", .legs = {{Account::wallet(alice, asset), Account::wallet(bob, asset), 5}}});
    EXPECT_TRUE(told.empty()) << "told before the commit";
  });
  ASSERT_EQ(told.size(), 1u);
  EXPECT_EQ(told[0], (std::vector<std::int64_t>{alice.value, bob.value}));

  // A refusal (InsufficientBalance) rolls back: nothing told, and the next commit does not tell it either.
  told.clear();
  EXPECT_THROW(adjust(bob, -1000), billing::InsufficientBalance);
  EXPECT_TRUE(told.empty());
  transfer("quota only", Account::platform(AccountKind::funding, asset), Account::platform(AccountKind::revenue, asset), 1);
  EXPECT_TRUE(told.empty()) << "no wallet moved";

  // A posting repeated under its reference moves nothing and tells nothing.
  db::transact(*db, [&](db::Tx& tx) {
    billing::post(*db, tx, {.kind = "test", .reference = "w2w", .legs = {{Account::wallet(alice, asset), Account::wallet(bob, asset), 5}}});
  });
  EXPECT_TRUE(told.empty());
  EXPECT_FALSE(inside_transaction);
}

TEST_F(LedgerTest, TellsTheCommitListenerOfAGrantedOrCancelledSubscription) {
  db::transact(*db, [&](db::Tx& tx) { billing::seed_plans(*db, tx); });
  std::vector<std::int64_t> told;
  db->set_commit_listener([&](const std::vector<std::int64_t>& users) { told.insert(told.end(), users.begin(), users.end()); });
  billing::grant_subscription(*db, bob, "starter", std::nullopt);
  EXPECT_EQ(told, std::vector<std::int64_t>{bob.value});
  told.clear();
  billing::cancel_subscription(*db, bob);
  EXPECT_EQ(told, std::vector<std::int64_t>{bob.value});
  told.clear();
  account::set_blocked(*db, alice, true);
  EXPECT_EQ(told, std::vector<std::int64_t>{alice.value});
}

}  // namespace
}  // namespace mediagen::test
