// PostgreSQL from the I/O threads (db/async_pg.hpp) against a real server: answers and NULLs,
// statements prepared once per connection, pipelines as one implicit transaction, refusals that
// leave the connection usable, the deadline (a stalled statement, and who waited for its connection),
// a backend killed under it, and many requests on two I/O threads sharing few connections.
#include <gtest/gtest.h>

#include <boost/asio/co_spawn.hpp>
#include <boost/asio/executor_work_guard.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/use_future.hpp>
#include <chrono>
#include <future>
#include <thread>
#include <vector>

#include "mediagen/db/async_pg.hpp"
#include "support.hpp"

namespace mediagen::test {
namespace {

namespace asio = boost::asio;
using namespace std::chrono_literals;

const db::Statement kEcho{"async_test_echo", "SELECT $1::bigint + 1, $2::text, NULL::text, $3::boolean"};
const db::Statement kBackend{"async_test_backend", "SELECT pg_backend_pid()"};
const db::Statement kPrepared{"async_test_prepared",
                              "SELECT count(*) FROM pg_prepared_statements WHERE name LIKE 'async_test_%'"};
const db::Statement kInsert{"async_test_insert", "INSERT INTO scratch VALUES ($1::int)"};
const db::Statement kCount{"async_test_count", "SELECT count(*) FROM scratch"};
const db::Statement kDivide{"async_test_divide", "SELECT 1 / $1::int"};
const db::Statement kSleep{"async_test_sleep", "SELECT pg_sleep($1::float8)"};

class AsyncPgTest : public MigratedTest {
 protected:
  void SetUp() override {
    MigratedTest::SetUp();
    if (HasFatalFailure()) return;
    query_value(db_url, "CREATE TABLE scratch (v int)");
    for (int i = 0; i < 2; ++i) threads.emplace_back([this] { ioc.run(); });
  }

  void TearDown() override {
    pg.reset();
    work.reset();
    ioc.stop();
    for (auto& t : threads) t.join();
    MigratedTest::TearDown();
  }

  void open(std::size_t connections, std::chrono::milliseconds deadline = 8s) {
    pg = std::make_unique<db::AsyncPg>(
        ioc, db::AsyncPgOptions{.url = db_url, .connections = connections,
                                .deadline = deadline},
        counters);
  }

  // Runs a coroutine on the I/O threads and waits for its value (or exception).
  template <class T>
  T on_io(asio::awaitable<T> a) {
    return asio::co_spawn(ioc, std::move(a), asio::use_future).get();
  }

  std::int64_t number(const db::Statement& st) { return on_io(pg->query(st))[0][0].as<std::int64_t>(); }

  asio::io_context ioc;
  asio::executor_work_guard<asio::io_context::executor_type> work{ioc.get_executor()};
  std::vector<std::thread> threads;
  std::unique_ptr<db::AsyncPg> pg;
};

TEST_F(AsyncPgTest, AStatementAnswersItsValuesAndNulls) {
  open(1);
  const db::PgResult r = on_io(pg->query(kEcho, std::int64_t{41}, std::string("é text"), true));
  ASSERT_EQ(r.size(), 1);
  EXPECT_EQ(r[0][0].as<std::int64_t>(), 42);
  EXPECT_EQ(r[0][1].as<std::string>(), "é text");
  EXPECT_TRUE(r[0][2].is_null());
  EXPECT_TRUE(r[0][3].as<bool>());
  const db::PgResult with_null = on_io(pg->query(kEcho, std::int64_t{1}, std::optional<std::string>{}, false));
  EXPECT_TRUE(with_null[0][1].is_null());
  EXPECT_FALSE(with_null[0][3].as<bool>());
}

TEST_F(AsyncPgTest, AStatementIsPreparedOnceOnAConnection) {
  open(1);
  const auto before = counters.db_queries.load();
  const auto pid = number(kBackend);
  for (int i = 0; i < 3; ++i) on_io(pg->query(kEcho, std::int64_t{i}, std::string("x"), true));
  EXPECT_EQ(number(kBackend), pid);  // one connection throughout
  EXPECT_EQ(number(kPrepared), 3);   // backend, echo, and this one: each once
  EXPECT_EQ(counters.db_queries.load() - before, 6u);  // statements run; the PREPAREs are not counted
}

TEST_F(AsyncPgTest, APipelineAnswersEveryStatementInOrder) {
  open(1);
  auto queries = std::make_unique<std::vector<db::PgQuery>>();
  queries->push_back(db::pg_query(kInsert, 7));
  queries->push_back(db::pg_query(kCount));
  queries->push_back(db::pg_query(kEcho, std::int64_t{1}, std::string("b"), false));
  const auto results = on_io(pg->pipeline(std::move(queries)));
  ASSERT_EQ(results.size(), 3u);
  EXPECT_EQ(results[0].affected_rows(), 1);
  EXPECT_EQ(results[1][0][0].as<std::int64_t>(), 1);
  EXPECT_EQ(results[2][0][1].as<std::string>(), "b");
}

TEST_F(AsyncPgTest, AStatementTwiceInANewPipelineIsPreparedOnce) {
  open(1);
  auto queries = std::make_unique<std::vector<db::PgQuery>>();
  queries->push_back(db::pg_query(kInsert, 1));
  queries->push_back(db::pg_query(kInsert, 2));
  queries->push_back(db::pg_query(kCount));
  const auto results = on_io(pg->pipeline(std::move(queries)));
  ASSERT_EQ(results.size(), 3u);
  EXPECT_EQ(results[2][0][0].as<std::int64_t>(), 2);
}

TEST_F(AsyncPgTest, AFailedStatementUndoesItsPipelineAndLeavesTheConnectionUsable) {
  open(1);
  const auto pid = number(kBackend);
  auto queries = std::make_unique<std::vector<db::PgQuery>>();
  queries->push_back(db::pg_query(kInsert, 7));
  queries->push_back(db::pg_query(kDivide, 0));
  queries->push_back(db::pg_query(kInsert, 8));
  try {
    on_io(pg->pipeline(std::move(queries)));
    ADD_FAILURE() << "a division by zero was answered";
  } catch (const db::PgError& e) {
    EXPECT_EQ(e.sqlstate(), "22012");
  }
  EXPECT_EQ(number(kCount), 0);  // the insert before the failure was rolled back with it
  EXPECT_EQ(number(kBackend), pid);
}

TEST_F(AsyncPgTest, AStalledStatementEndsAtTheDeadlineAndTheNextOneRuns) {
  open(1, 300ms);
  EXPECT_THROW(on_io(pg->query(kSleep, std::string("5"))), db::Unavailable);
  EXPECT_EQ(counters.pool_deadlines.load(), 1u);  // the migrations count none
  EXPECT_EQ(number(kCount), 0);
}

// Deadlines run in the order requests came, so the one waiting for the only connection gets it
// (a new one, in the place of the one cut) before its own deadline. The second request asks once
// the sleep has run 600 ms of its 1 s, as PostgreSQL's own clock tells: it is then left 600 ms
// after the cut to open a connection and run, not whatever time the polling happened to take.
TEST_F(AsyncPgTest, ARequestWaitingForTheOnlyConnectionGetsTheOneTheDeadlineFreed) {
  open(1, 1000ms);
  auto stalled = asio::co_spawn(ioc, pg->query(kSleep, std::string("5")), asio::use_future);
  const std::string sleeping =
      "SELECT count(*) FROM pg_stat_activity WHERE datname = current_database() AND state = 'active'"
      " AND query LIKE 'SELECT pg_sleep%'"  // this test's database: other shards sleep too
      " AND clock_timestamp() - query_start >= interval '600 ms'";
  for (int i = 0; i < 100000 && query_value(db_url, sleeping) != "1"; ++i) std::this_thread::yield();
  ASSERT_EQ(query_value(db_url, sleeping), "1");
  auto waiting = asio::co_spawn(ioc, pg->query(kCount), asio::use_future);
  EXPECT_THROW(stalled.get(), db::Unavailable);
  EXPECT_EQ(waiting.get()[0][0].as<std::int64_t>(), 0);
  EXPECT_EQ(counters.pool_deadlines.load(), 1u);
  EXPECT_EQ(pg->open_connections(), 1u);
}

TEST_F(AsyncPgTest, AKilledBackendFailsOneRequestAndTheNextOpensAnother) {
  open(1);
  const auto pid = number(kBackend);
  query_value(db_url, "SELECT pg_terminate_backend(" + std::to_string(pid) + ")");
  EXPECT_THROW(on_io(pg->query(kCount)), db::Unavailable);
  EXPECT_NE(number(kBackend), pid);
  EXPECT_EQ(pg->open_connections(), 1u);
}

TEST_F(AsyncPgTest, ManyRequestsShareFewConnections) {
  open(3);
  std::vector<std::future<db::PgResult>> answers;
  for (int i = 0; i < 200; ++i) {
    answers.push_back(asio::co_spawn(ioc, pg->query(kEcho, std::int64_t{i}, std::string("m"), true), asio::use_future));
  }
  for (int i = 0; i < 200; ++i) EXPECT_EQ(answers[i].get()[0][0].as<std::int64_t>(), i + 1);
  EXPECT_LE(pg->open_connections(), 3u);
}

TEST_F(AsyncPgTest, AnUnreachableDatabaseIsUnavailable) {
  pg = std::make_unique<db::AsyncPg>(
      ioc, db::AsyncPgOptions{.url = "postgresql://nobody@127.0.0.1:1/none"},
      counters);
  EXPECT_THROW(on_io(pg->query(kCount)), db::Unavailable);
  EXPECT_EQ(pg->open_connections(), 0u);
}

TEST_F(AsyncPgTest, AnUnreadableDatabaseUrlIsUnavailable) {
  pg = std::make_unique<db::AsyncPg>(ioc, db::AsyncPgOptions{.url = "postgresql://host:notaport/db"}, counters);
  EXPECT_THROW(on_io(pg->query(kCount)), db::Unavailable);
  EXPECT_EQ(pg->open_connections(), 0u);
}

}  // namespace
}  // namespace mediagen::test
