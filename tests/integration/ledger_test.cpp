#include <gtest/gtest.h>

#include <atomic>
#include <pqxx/pqxx>
#include <thread>
#include <vector>

#include "mediagen/account/users.hpp"
#include "mediagen/billing/ledger.hpp"
#include "mediagen/db/pg.hpp"
#include "support.hpp"

namespace mediagen::test {
namespace {

class LedgerTest : public MigratedTest {
 protected:
  void SetUp() override {
    MigratedTest::SetUp();
    if (HasFatalFailure()) return;
    db.emplace(db_url, &counters);
    alice = account::create_user(*db, {"alice@example.com", "Alice", Locale::en, {}}).id;
    bob = account::create_user(*db, {"bob@example.com", "Bob", Locale::ru, {}}).id;
    asset = db::read(*db, [&](pqxx::transaction_base& tx) { return billing::default_asset(*db, tx); }).id;
  }

  void TearDown() override {
    db.reset();
    MigratedTest::TearDown();
  }

  MinorUnits post(UserId user, std::int64_t amount, std::string_view kind = "test") {
    return db::transact(*db, [&](pqxx::work& tx) {
      return billing::post(*db, tx, {user, asset, MinorUnits{amount}, kind, "ref-1", "note"});
    });
  }

  std::int64_t balance(UserId user) {
    const std::string v = query_value(
        db_url, "SELECT COALESCE((SELECT amount_minor FROM balances WHERE user_id = " + std::to_string(user.value) +
                    "), 0)");
    return std::stoll(v);
  }

  std::int64_t ledger_sum(UserId user) {
    return std::stoll(query_value(
        db_url, "SELECT COALESCE(sum(amount_minor), 0) FROM ledger_entries WHERE user_id = " + std::to_string(user.value)));
  }

  std::int64_t ledger_rows() { return std::stoll(query_value(db_url, "SELECT count(*) FROM ledger_entries")); }

  // Every user's balance equals the sum of their ledger entries.
  void expect_balances_match_ledger() {
    const std::string mismatches = query_value(
        db_url,
        "SELECT count(*) FROM (SELECT u.id, COALESCE(b.amount_minor, 0) AS balance,"
        " COALESCE((SELECT sum(amount_minor) FROM ledger_entries e WHERE e.user_id = u.id), 0) AS ledger"
        " FROM users u LEFT JOIN balances b ON b.user_id = u.id) x WHERE balance <> ledger");
    EXPECT_EQ(mismatches, "0");
  }

  std::optional<db::Db> db;
  UserId alice, bob;
  AssetId asset;
};

TEST_F(LedgerTest, KeepsEachBalanceEqualToTheSumOfItsLedgerEntries) {
  EXPECT_EQ(post(alice, 1000).value, 1000);
  EXPECT_EQ(post(alice, -300).value, 700);
  EXPECT_EQ(post(alice, 50).value, 750);
  EXPECT_EQ(post(bob, 42).value, 42);
  EXPECT_EQ(balance(alice), 750);
  EXPECT_EQ(ledger_sum(alice), 750);
  EXPECT_EQ(balance(bob), 42);
  EXPECT_EQ(ledger_sum(bob), 42);
  EXPECT_EQ(ledger_rows(), 4);
  expect_balances_match_ledger();
}

TEST_F(LedgerTest, RecordsKindReferenceAndNote) {
  post(alice, 1000, "admin_adjustment");
  EXPECT_EQ(query_value(db_url, "SELECT kind || '|' || reference || '|' || note FROM ledger_entries"),
            "admin_adjustment|ref-1|note");
}

TEST_F(LedgerTest, RefusesToGoBelowZeroAndWritesNothing) {
  post(alice, 500);
  const auto rows_before = ledger_rows();
  EXPECT_THROW(post(alice, -501), billing::InsufficientBalance);
  EXPECT_EQ(balance(alice), 500);
  EXPECT_EQ(ledger_rows(), rows_before);
  EXPECT_EQ(post(alice, -500).value, 0) << "a debit down to exactly zero is allowed";
  expect_balances_match_ledger();
}

TEST_F(LedgerTest, RefusesADebitOnAnEmptyBalanceAndLeavesNoBalanceRow) {
  EXPECT_THROW(post(bob, -1), billing::InsufficientBalance);
  EXPECT_EQ(query_value(db_url, "SELECT count(*) FROM balances WHERE user_id = " + std::to_string(bob.value)), "0");
  EXPECT_EQ(ledger_rows(), 0);
}

TEST_F(LedgerTest, RollsBackEarlierEntriesOfTheSameTransactionOnRefusal) {
  post(alice, 100);
  EXPECT_THROW(db::transact(*db,
                            [&](pqxx::work& tx) {
                              billing::post(*db, tx, {alice, asset, MinorUnits{1000}, "test", "", ""});
                              billing::post(*db, tx, {bob, asset, MinorUnits{5}, "test", "", ""});
                              billing::post(*db, tx, {alice, asset, MinorUnits{-5000}, "test", "", ""});
                            }),
               billing::InsufficientBalance);
  EXPECT_EQ(balance(alice), 100);
  EXPECT_EQ(balance(bob), 0);
  EXPECT_EQ(ledger_rows(), 1);
  expect_balances_match_ledger();
}

TEST_F(LedgerTest, RefusesAZeroAmount) {
  EXPECT_THROW(post(alice, 0), std::invalid_argument);
  EXPECT_EQ(ledger_rows(), 0);
}

TEST_F(LedgerTest, StoresAnEmptyReferenceAndNoteAsNull) {
  db::transact(*db, [&](pqxx::work& tx) { billing::post(*db, tx, {alice, asset, MinorUnits{1}, "test", "", ""}); });
  EXPECT_EQ(query_value(db_url, "SELECT count(*) FROM ledger_entries WHERE reference IS NULL AND note IS NULL"), "1");
}

TEST_F(LedgerTest, ForbidsUpdatingLedgerRows) {
  post(alice, 1000);
  pqxx::connection conn(db_url);
  pqxx::work tx(conn);
  try {
    tx.exec("UPDATE ledger_entries SET amount_minor = 1");
    FAIL() << "an UPDATE of ledger_entries succeeded";
  } catch (const pqxx::sql_error& e) {
    EXPECT_NE(std::string(e.what()).find("append-only"), std::string::npos) << e.what();
  }
}

TEST_F(LedgerTest, ForbidsDeletingLedgerRows) {
  post(alice, 1000);
  pqxx::connection conn(db_url);
  pqxx::work tx(conn);
  try {
    tx.exec("DELETE FROM ledger_entries");
    FAIL() << "a DELETE from ledger_entries succeeded";
  } catch (const pqxx::sql_error& e) {
    EXPECT_NE(std::string(e.what()).find("append-only"), std::string::npos) << e.what();
  }
  EXPECT_EQ(ledger_rows(), 1);
}

TEST_F(LedgerTest, NeverOverdrawsUnderConcurrentDebits) {
  post(alice, 1000);
  constexpr int kThreads = 4;
  constexpr int kDebitsEach = 10;
  std::atomic<int> accepted{0}, refused{0}, failed{0};
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&] {
      InfraCounters local;
      db::Db own(db_url, &local);
      for (int i = 0; i < kDebitsEach; ++i) {
        try {
          db::transact(own, [&](pqxx::work& tx) {
            billing::post(own, tx, {alice, asset, MinorUnits{-50}, "test", "", ""});
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
  EXPECT_EQ(balance(alice), 0);
  expect_balances_match_ledger();
}

}  // namespace
}  // namespace mediagen::test
