#include <gtest/gtest.h>

#include <atomic>
#include <barrier>
#include <mutex>
#include <pqxx/pqxx>
#include <thread>
#include <vector>

#include "mediagen/db/migrate.hpp"
#include "mediagen/db/pg.hpp"
#include "support.hpp"

namespace mediagen::test {
namespace {

using MigrationsTest = ServicesTest;

int applied_rows(const std::string& url) { return std::stoi(query_value(url, "SELECT count(*) FROM schema_migrations")); }

TEST_F(MigrationsTest, AppliesTheFirstMigrationToAnEmptyDatabase) {
  db::Db db(db_url, &counters);
  const auto report = db::migrate(db, db::embedded_migrations());
  ASSERT_FALSE(db::embedded_migrations().empty());
  EXPECT_EQ(db::embedded_migrations().front().version, 1);
  ASSERT_FALSE(report.applied.empty());
  EXPECT_EQ(report.applied.front(), 1);
  EXPECT_EQ(report.current_version, db::embedded_migrations().back().version);
  EXPECT_EQ(query_value(db_url, "SELECT name FROM schema_migrations WHERE version = 1"),
            db::embedded_migrations().front().name);
  // The schema of 0001 is there, with its default currency.
  EXPECT_EQ(query_value(db_url, "SELECT code FROM currency_assets WHERE is_default"), "USD");
  for (const char* table : {"users", "api_keys", "currency_assets", "ledger_accounts", "ledger_txns", "ledger_entries"}) {
    EXPECT_EQ(query_value(db_url, std::string("SELECT to_regclass('public.") + table + "') IS NOT NULL"), "t") << table;
  }
}

TEST_F(MigrationsTest, AppliesNothingTheSecondTime) {
  db::Db db(db_url, &counters);
  db::migrate(db, db::embedded_migrations());
  const auto again = db::migrate(db, db::embedded_migrations());
  EXPECT_TRUE(again.applied.empty());
  EXPECT_EQ(again.current_version, db::embedded_migrations().back().version);
  EXPECT_EQ(applied_rows(db_url), static_cast<int>(db::embedded_migrations().size()));
  // A fresh connection sees the same.
  db::Db other(db_url, &counters);
  EXPECT_TRUE(db::migrate(other, db::embedded_migrations()).applied.empty());
}

TEST_F(MigrationsTest, AppliesOnlyTheVersionsNotYetRecorded) {
  const std::vector<db::Migration> first{{1, "one", "CREATE TABLE t1 (x int)"}};
  const std::vector<db::Migration> both{{1, "one", "CREATE TABLE t1 (x int)"}, {2, "two", "CREATE TABLE t2 (x int)"}};
  db::Db db(db_url, &counters);
  EXPECT_EQ(db::migrate(db, first).applied, std::vector<int>{1});
  const auto report = db::migrate(db, both);
  EXPECT_EQ(report.applied, std::vector<int>{2});
  EXPECT_EQ(report.current_version, 2);
}

TEST_F(MigrationsTest, AppliesEachVersionExactlyOnceWhenInstancesMigrateTogether) {
  constexpr int kInstances = 4;
  std::barrier start(kInstances);
  std::mutex mutex;
  std::vector<int> applied;
  std::vector<std::string> errors;
  std::vector<std::thread> threads;
  for (int i = 0; i < kInstances; ++i) {
    threads.emplace_back([&] {
      InfraCounters local;
      db::Db db(db_url, &local);
      try {
        db.conn();  // connect first, so the instances really race for the lock
        start.arrive_and_wait();
        const auto report = db::migrate(db, db::embedded_migrations());
        std::lock_guard lock(mutex);
        applied.insert(applied.end(), report.applied.begin(), report.applied.end());
      } catch (const std::exception& e) {
        std::lock_guard lock(mutex);
        errors.emplace_back(e.what());
      }
    });
  }
  for (auto& t : threads) t.join();
  EXPECT_TRUE(errors.empty()) << errors.front();
  std::vector<int> expected;
  for (const auto& m : db::embedded_migrations()) expected.push_back(m.version);
  std::sort(applied.begin(), applied.end());
  EXPECT_EQ(applied, expected) << "every version must be applied by exactly one instance";
  EXPECT_EQ(applied_rows(db_url), static_cast<int>(expected.size()));
  // Seed rows of the migrations exist once: the platform currency and the token asset.
  EXPECT_EQ(query_value(db_url, "SELECT count(*) FROM currency_assets"), "2");
  EXPECT_EQ(query_value(db_url, "SELECT count(*) FROM ledger_accounts WHERE owner = 'platform'"), "4");
}

TEST_F(MigrationsTest, RollsBackAFailingMigrationAndReleasesTheLock) {
  const std::vector<db::Migration> broken{{1, "one", "CREATE TABLE t1 (x int)"},
                                          {2, "two", "CREATE TABLE t2 (x int); SELECT 1 / 0"}};
  db::Db db(db_url, &counters);
  EXPECT_ANY_THROW(db::migrate(db, broken));
  EXPECT_EQ(applied_rows(db_url), 1);
  EXPECT_EQ(query_value(db_url, "SELECT to_regclass('public.t2') IS NULL"), "t") << "the failed migration left a table";

  // Another instance can take the lock and finish once the migration is fixed.
  const std::vector<db::Migration> fixed{{1, "one", "CREATE TABLE t1 (x int)"}, {2, "two", "CREATE TABLE t2 (x int)"}};
  std::atomic<bool> done{false};
  std::thread other([&] {
    InfraCounters local;
    db::Db db2(db_url, &local);
    EXPECT_EQ(db::migrate(db2, fixed).applied, std::vector<int>{2});
    done = true;
  });
  for (int i = 0; i < 200 && !done; ++i) std::this_thread::sleep_for(std::chrono::milliseconds(50));
  if (!done) {
    // Unblock the waiting migration before failing, so the test cannot hang.
    db.reset();
  }
  other.join();
  EXPECT_TRUE(done.load()) << "the advisory lock was still held after the failed migration";
  // The first connection still works too.
  EXPECT_TRUE(db::migrate(db, fixed).applied.empty());
}

}  // namespace
}  // namespace mediagen::test
