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

// A fresh install leaves the chunk tables unanalysed: statistics that say "empty" would make
// plans cached while the tables are small (a foreign key's check included) scan them whole later.
TEST_F(MigrationsTest, AFreshInstallLeavesTheEmptyChunkTablesUnanalysed) {
  db::Db db(db_url, &counters);
  db::migrate(db, db::embedded_migrations());
  for (const char* table : {"order_items", "order_item_texts", "orders"}) {
    EXPECT_EQ(query_value(db_url, std::string("SELECT reltuples FROM pg_class WHERE oid = 'public.") + table +
                                      "'::regclass"),
              "-1")
        << table;
  }
}

// 0019 rebuilds order_items with its text in order_item_texts: every row, value and rule survives.
TEST_F(MigrationsTest, NarrowChunkRowsKeepEveryRowValueAndRule) {
  std::vector<db::Migration> before;
  for (const auto& m : db::embedded_migrations()) {
    if (m.version < 19) before.push_back(m);
  }
  ASSERT_EQ(before.back().version, 18);
  db::Db db(db_url, &counters);
  db::migrate(db, before);
  const std::string user = query_value(db_url, "INSERT INTO users (email, name) VALUES ('m@example.com', 'M') RETURNING id");
  const std::string order = query_value(
      db_url, "INSERT INTO orders (user_id, task_type, service_key, asset_id) VALUES (" + user +
                  ", 'tts', 'provider_a', (SELECT id FROM currency_assets WHERE is_default)) RETURNING id::text");
  const std::string columns =
      "(order_id, item_type, chunk_index, parent_item_id, status, text, original_text_length, current_text_length,"
      " free_length, billable_length, max_billable_length, max_raw_length, raw_length, capacity_unit, price_units,"
      " lease_token, locked_until, result_path, timings)";
  const std::string first = query_value(
      db_url, "INSERT INTO order_items " + columns + " VALUES ('" + order +
                  "', 'chunk', 0, NULL, 'failed', 'Zero, with ünïcode.', 19, 19, 19, 19, 19, 5000, 21, 'chars', 19,"
                  " NULL, NULL, 'orders/x/0.mp3', '[[0, 417, 0]]') RETURNING id::text");
  query_value(db_url, "INSERT INTO order_items " + columns + " VALUES ('" + order + "', 'retry', 0, '" + first +
                          "', 'processing', 'Zero again.', 19, 11, 19, 11, 19, 5000, 11, 'chars', 11,"
                          " gen_random_uuid(), now() + interval '1 minute', NULL, NULL) RETURNING 1");
  query_value(db_url, "INSERT INTO order_items " + columns + " VALUES ('" + order +
                          "', 'chunk', 1, NULL, 'completed', NULL, 3, 3, 3, 3, 3, 5000, 3, 'chars', 3,"
                          " NULL, NULL, NULL, NULL) RETURNING 1");
  // Every column but the text, and the texts, as one text each.
  const std::string rows_sql =
      "SELECT string_agg(concat_ws('|', id, order_id, item_type, chunk_index, paragraph_index, parent_item_id,"
      " attempt_number, status, failure_reason, original_text_length, current_text_length, free_length,"
      " billable_length, max_billable_length, max_raw_length, raw_length, capacity_unit, price_units, quota_tokens,"
      " payg_minor, surcharge_tokens, surcharge_quota_tokens, surcharge_minor, consumed_units, remaining_locked,"
      " result_path, result_size, duration_ms, timings, claims, lease_token, locked_until, queued_at, created_at,"
      " updated_at), E'\\n' ORDER BY id) FROM order_items";
  const std::string rows = query_value(db_url, rows_sql);
  const std::string texts = query_value(db_url, "SELECT string_agg(id || ':' || text, ',' ORDER BY id) FROM order_items"
                                                " WHERE text IS NOT NULL");

  std::vector<db::Migration> through_19 = before;
  for (const auto& m : db::embedded_migrations()) {
    if (m.version == 19) through_19.push_back(m);
  }
  EXPECT_EQ(db::migrate(db, through_19).applied, std::vector<int>{19});
  // With rows to count, the rebuilt tables are analysed.
  EXPECT_NE(query_value(db_url, "SELECT reltuples FROM pg_class WHERE oid = 'public.order_items'::regclass"), "-1");
  EXPECT_EQ(query_value(db_url, rows_sql), rows);
  EXPECT_EQ(query_value(db_url, "SELECT string_agg(item_id || ':' || text, ',' ORDER BY item_id) FROM order_item_texts"),
            texts);
  EXPECT_EQ(query_value(db_url, "SELECT count(*) FROM information_schema.columns WHERE table_name = 'order_items'"
                                " AND column_name = 'text'"),
            "0");
  // What claims and completions change comes last, and pages keep room for new versions.
  EXPECT_EQ(query_value(db_url, "SELECT string_agg(attname, ',' ORDER BY attnum) FROM pg_attribute"
                                " WHERE attrelid = 'order_items'::regclass AND attnum > 0 AND NOT attisdropped"
                                " AND attnum >= (SELECT attnum FROM pg_attribute WHERE attrelid = 'order_items'::regclass"
                                "  AND attname = 'status')"),
            "status,claims,lease_token,locked_until,updated_at,consumed_units,remaining_locked,result_size,duration_ms,"
            "failure_reason,result_path,timings");
  EXPECT_EQ(query_value(db_url, "SELECT reloptions::text FROM pg_class WHERE oid = 'order_items'::regclass"),
            "{fillfactor=80}");
  // The rules: one live attempt per position, a retry names a parent that exists, every check by
  // its old name, a text belongs to a chunk.
  const std::string live_again = "INSERT INTO order_items (order_id, item_type, chunk_index, parent_item_id,"
                                 " original_text_length, current_text_length, free_length, billable_length,"
                                 " max_billable_length, max_raw_length, raw_length, capacity_unit, price_units) VALUES ('" +
                                 order + "', 'retry', 0, '" + first + "', 1, 1, 1, 1, 1, 1, 1, 'chars', 1)";
  EXPECT_THROW(query_value(db_url, live_again), pqxx::unique_violation);
  EXPECT_THROW(query_value(db_url, "UPDATE order_items SET parent_item_id = gen_random_uuid() WHERE item_type = 'retry'"),
               pqxx::foreign_key_violation);
  EXPECT_THROW(query_value(db_url, "UPDATE order_items SET status = 'processing' WHERE id = '" + first + "'"),
               pqxx::check_violation);
  EXPECT_THROW(query_value(db_url, "INSERT INTO order_item_texts VALUES (gen_random_uuid(), 'orphan')"),
               pqxx::foreign_key_violation);
  EXPECT_EQ(query_value(db_url, "SELECT string_agg(conname, ',' ORDER BY conname) FROM pg_constraint"
                                " WHERE conrelid = 'order_items'::regclass AND conname LIKE 'order_items_check%'"),
            "order_items_check,order_items_check1");
  // New rows get time-ordered (version 7) ids.
  EXPECT_EQ(query_value(db_url, "WITH o AS (INSERT INTO orders (user_id, task_type, service_key, asset_id) VALUES (" +
                                    user + ", 'tts', 'provider_a', 1) RETURNING id)"
                                           " SELECT substr(uuid_v7()::text, 15, 1) || substr(o.id::text, 15, 1) FROM o"),
            "77");
}

}  // namespace
}  // namespace mediagen::test
