// What a stalled PostgreSQL may cost a request: the pool's deadline answers db::Unavailable (503)
// in time, a job that had not started never runs, a running one rolls back instead of committing,
// and shutdown drops what is still queued. Statement and lock timeouts end as Unavailable too.
#include <gtest/gtest.h>

#include <atomic>
#include <boost/asio/co_spawn.hpp>
#include <boost/asio/executor_work_guard.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/use_future.hpp>
#include <chrono>
#include <future>
#include <latch>
#include <thread>

#include "mediagen/db/blocking_pool.hpp"
#include "mediagen/db/pg.hpp"
#include "support.hpp"

namespace mediagen::test {
namespace {

namespace asio = boost::asio;
using namespace std::chrono_literals;

class PoolDeadlineTest : public MigratedTest {
 protected:
  void SetUp() override {
    MigratedTest::SetUp();
    if (HasFatalFailure()) return;
    pool = std::make_unique<db::BlockingPool>(
        db::BlockingPoolOptions{.threads = 2, .database_url = db_url, .redis = {.url = redis_url}}, counters);
    io_thread = std::thread([this] { ioc.run(); });
    admin.emplace(db_url, nullptr);
    db::transact(*admin, [&](db::Tx& tx) { admin->exec_raw(tx, "CREATE TABLE scratch (v int)"); });
  }

  void TearDown() override {
    release.set_value();  // whatever still waits for it
    work.reset();
    ioc.stop();
    if (io_thread.joinable()) io_thread.join();
    if (pool) pool->stop();
    pool.reset();
    admin.reset();
    MigratedTest::TearDown();
  }

  // A job that holds its pool thread until the test lets it go.
  void occupy_thread(std::latch& started) {
    pool->submit([this, &started](db::Resources&) {
      started.count_down();
      released.wait();
    });
  }

  std::int64_t scratch_rows() {
    return db::read(*admin, [&](db::Tx& tx) {
      return admin->exec_raw(tx, "SELECT count(*) FROM scratch")[0][0].as<std::int64_t>();
    });
  }

  asio::io_context ioc;
  asio::executor_work_guard<asio::io_context::executor_type> work{ioc.get_executor()};
  std::thread io_thread;
  std::unique_ptr<db::BlockingPool> pool;
  std::optional<db::Db> admin;
  std::promise<void> release;
  std::shared_future<void> released = release.get_future().share();
};

// "unavailable" when the deadline answered, "ok" when the job did.
asio::awaitable<std::string> run_with_deadline(db::BlockingPool& pool, std::function<void(db::Resources&)> job,
                                               std::chrono::milliseconds deadline) {
  try {
    co_await pool.run(std::move(job), deadline);
  } catch (const db::Unavailable&) {
    co_return "unavailable";
  }
  co_return "ok";
}

TEST_F(PoolDeadlineTest, AJobStuckOnPostgresPastTheDeadlineIsCutOffAndCommitsNothing) {
  // A statement limit far beyond the deadline: only the pool's watchdog can end this wait.
  db::BlockingPool slow_pool(db::BlockingPoolOptions{.threads = 1,
                                                     .request_deadline = 300ms,
                                                     .limits = {.statement_timeout_ms = 60000},
                                                     .database_url = db_url,
                                                     .redis = {.url = redis_url}},
                             counters);
  auto job = [&](db::Resources& r) {
    db::transact(r.db, [&](db::Tx& tx) {
      r.db.exec_raw(tx, "INSERT INTO scratch VALUES (1)");
      r.db.exec_raw(tx, "SELECT pg_sleep(30)");
    });
  };
  auto answer = asio::co_spawn(ioc, run_with_deadline(slow_pool, job, 300ms), asio::use_future);
  ASSERT_EQ(answer.wait_for(20s), std::future_status::ready) << "the stuck job was never cut off";
  EXPECT_EQ(answer.get(), "unavailable");
  EXPECT_EQ(scratch_rows(), 0);
  EXPECT_EQ(counters.pool_deadlines.load(), 1u);
  // The thread opens a new connection for the next job.
  auto next = asio::co_spawn(ioc, run_with_deadline(slow_pool, [](db::Resources& r) { r.db.ping(); }, 0ms),
                             asio::use_future);
  ASSERT_EQ(next.wait_for(20s), std::future_status::ready);
  EXPECT_EQ(next.get(), "ok");
  slow_pool.stop();
}

asio::awaitable<std::string> run_owned(db::BlockingPool& pool, std::function<void(db::Resources&)> job) {
  try {
    co_await pool.run(std::move(job), 200ms, /*owned=*/true);
  } catch (const db::Unavailable&) {
    co_return "unavailable";
  }
  co_return "ok";
}

TEST_F(PoolDeadlineTest, AnOwnedJobIsAnsweredAtItsDeadlineEvenWhileItRuns) {
  auto job = [f = released](db::Resources&) { f.wait(); };
  auto answer = asio::co_spawn(ioc, run_owned(*pool, job), asio::use_future);
  ASSERT_EQ(answer.wait_for(20s), std::future_status::ready);
  EXPECT_EQ(answer.get(), "unavailable");
  release.set_value();
  release = {};
}

TEST_F(PoolDeadlineTest, AJobStillQueuedAtItsDeadlineNeverRuns) {
  std::latch started(2);
  occupy_thread(started);
  occupy_thread(started);
  started.wait();
  std::atomic<bool> ran{false};
  auto answer = asio::co_spawn(ioc, run_with_deadline(*pool, [&](db::Resources&) { ran = true; }, 100ms),
                               asio::use_future);
  ASSERT_EQ(answer.wait_for(30s), std::future_status::ready);
  EXPECT_EQ(answer.get(), "unavailable");
  release.set_value();
  release = {};
  // Jobs start in order: once a later one has run, the expired one was taken off the queue.
  auto later = asio::co_spawn(ioc, run_with_deadline(*pool, [](db::Resources&) {}, 0ms), asio::use_future);
  ASSERT_EQ(later.wait_for(30s), std::future_status::ready);
  EXPECT_EQ(later.get(), "ok");
  EXPECT_FALSE(ran.load()) << "a job ran after its caller had been answered";
}

TEST_F(PoolDeadlineTest, AJobThatFinishesInTimeIsAnsweredByItself) {
  auto answer = asio::co_spawn(ioc, run_with_deadline(*pool, [](db::Resources& r) { r.db.ping(); }, 10s),
                               asio::use_future);
  ASSERT_EQ(answer.wait_for(30s), std::future_status::ready);
  EXPECT_EQ(answer.get(), "ok");
  EXPECT_EQ(counters.pool_deadlines.load(), 0u);
}

TEST_F(PoolDeadlineTest, AbandonDropsQueuedJobsAndRollsBackRunningOnes) {
  std::promise<void> inserted;
  std::promise<void> finished;
  std::latch started(1);
  occupy_thread(started);
  pool->submit([&](db::Resources& r) {
    try {
      db::transact(r.db, [&](db::Tx& tx) {
        r.db.exec_raw(tx, "INSERT INTO scratch VALUES (2)");
        inserted.set_value();
        released.wait();
      });
    } catch (const db::Unavailable&) {
    }
    finished.set_value();
  });
  started.wait();
  ASSERT_EQ(inserted.get_future().wait_for(30s), std::future_status::ready);
  std::atomic<bool> ran{false};
  pool->submit([&](db::Resources&) { ran = true; });  // both threads busy: this one waits
  pool->abandon();
  release.set_value();
  release = {};
  ASSERT_EQ(finished.get_future().wait_for(30s), std::future_status::ready);
  pool->stop();
  EXPECT_FALSE(ran.load()) << "a queued job started after the grace period";
  EXPECT_EQ(scratch_rows(), 0) << "a running job committed after the grace period";
}

TEST_F(PoolDeadlineTest, AStatementPastItsTimeoutIsUnavailable) {
  db::Db db(db_url, nullptr, {.statement_timeout_ms = 200});
  EXPECT_THROW(db::read(db, [&](db::Tx& tx) { db.exec_raw(tx, "SELECT pg_sleep(5)"); }), db::Unavailable);
  EXPECT_NO_THROW(db.ping()) << "the connection must be usable again";
}

TEST_F(PoolDeadlineTest, ALockWaitPastItsTimeoutIsUnavailable) {
  db::Db holder(db_url, nullptr);
  db::Db waiter(db_url, nullptr, {.lock_timeout_ms = 200});
  db::transact(*admin, [&](db::Tx& tx) { admin->exec_raw(tx, "INSERT INTO scratch VALUES (3)"); });
  std::promise<void> locked;
  std::thread hold([&] {
    db::transact(holder, [&](db::Tx& tx) {
      holder.exec_raw(tx, "SELECT * FROM scratch FOR UPDATE");
      locked.set_value();
      released.wait();
    });
  });
  locked.get_future().wait();
  EXPECT_THROW(db::transact(waiter, [&](db::Tx& tx) { waiter.exec_raw(tx, "UPDATE scratch SET v = 4"); }),
               db::Unavailable);
  release.set_value();
  release = {};
  hold.join();
}

}  // namespace
}  // namespace mediagen::test
