#include <gtest/gtest.h>

#include <atomic>
#include <boost/asio/co_spawn.hpp>
#include <boost/asio/executor_work_guard.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/use_future.hpp>
#include <chrono>
#include <future>
#include <stdexcept>
#include <thread>

#include "mediagen/db/blocking_pool.hpp"
#include "mediagen/db/pg.hpp"
#include "support.hpp"

namespace mediagen::test {
namespace {

namespace asio = boost::asio;
using namespace std::chrono_literals;

class BlockingPoolTest : public MigratedTest {
 protected:
  void SetUp() override {
    MigratedTest::SetUp();
    if (HasFatalFailure()) return;
    pool = std::make_unique<db::BlockingPool>(
        db::BlockingPoolOptions{.threads = 2, .database_url = db_url, .redis = {.url = redis_url}}, counters);
    io_thread = std::thread([this] { ioc.run(); });
  }

  void TearDown() override {
    work.reset();
    ioc.stop();
    if (io_thread.joinable()) io_thread.join();
    if (pool) pool->stop();
    pool.reset();
    MigratedTest::TearDown();
  }

  // Runs a coroutine on the I/O thread and waits for its result.
  template <class T>
  T on_io(asio::awaitable<T> work_item) {
    auto done = asio::co_spawn(ioc, std::move(work_item), asio::use_future);
    if (done.wait_for(30s) != std::future_status::ready) throw std::runtime_error("the coroutine did not finish");
    return done.get();
  }

  asio::io_context ioc;
  asio::executor_work_guard<asio::io_context::executor_type> work{ioc.get_executor()};
  std::thread io_thread;
  std::unique_ptr<db::BlockingPool> pool;
};

asio::awaitable<int> returns_a_value(db::BlockingPool& pool) {
  auto job = [](db::Resources&) { return 6 * 7; };
  int v = co_await pool.run(std::move(job));
  co_return v;
}

TEST_F(BlockingPoolTest, ReturnsTheValueOfAJob) { EXPECT_EQ(on_io(returns_a_value(*pool)), 42); }

asio::awaitable<std::string> returns_a_string(db::BlockingPool& pool, std::string suffix) {
  auto job = [suffix](db::Resources&) { return "a long string that does not fit a small buffer: " + suffix; };
  std::string v = co_await pool.run(std::move(job));
  co_return v;
}

TEST_F(BlockingPoolTest, ReturnsAStringThatOutgrowsTheSmallBuffer) {
  EXPECT_EQ(on_io(returns_a_string(*pool, std::string(100, 'x'))),
            "a long string that does not fit a small buffer: " + std::string(100, 'x'));
}

asio::awaitable<std::string> propagates(db::BlockingPool& pool) {
  auto job = [](db::Resources&) -> int { throw std::runtime_error("boom in the pool"); };
  try {
    co_await pool.run(std::move(job));
  } catch (const std::runtime_error& e) {
    co_return e.what();
  }
  co_return "no exception";
}

TEST_F(BlockingPoolTest, PropagatesAJobsException) { EXPECT_EQ(on_io(propagates(*pool)), "boom in the pool"); }

asio::awaitable<std::string> propagates_from_void(db::BlockingPool& pool) {
  auto job = [](db::Resources&) { throw std::logic_error("void boom"); };
  try {
    co_await pool.run(std::move(job));
  } catch (const std::logic_error& e) {
    co_return e.what();
  }
  co_return "no exception";
}

TEST_F(BlockingPoolTest, PropagatesTheExceptionOfAVoidJob) {
  EXPECT_EQ(on_io(propagates_from_void(*pool)), "void boom");
}

asio::awaitable<int> runs_void(db::BlockingPool& pool, std::atomic<int>& ran) {
  auto job = [&ran](db::Resources&) { ran.fetch_add(1); };
  co_await pool.run(std::move(job));
  co_return ran.load();
}

TEST_F(BlockingPoolTest, RunsAVoidJobBeforeResuming) {
  std::atomic<int> ran{0};
  EXPECT_EQ(on_io(runs_void(*pool, ran)), 1);
}

asio::awaitable<bool> resumes_on_its_executor(db::BlockingPool& pool, std::thread::id io) {
  std::thread::id job_thread;
  auto job = [&job_thread](db::Resources&) {
    job_thread = std::this_thread::get_id();
    return 0;
  };
  co_await pool.run(std::move(job));
  co_return job_thread != io && std::this_thread::get_id() == io;
}

TEST_F(BlockingPoolTest, RunsJobsOffTheIoThreadAndResumesOnIt) {
  EXPECT_TRUE(on_io(resumes_on_its_executor(*pool, io_thread.get_id())));
}

asio::awaitable<std::string> uses_the_stores(db::BlockingPool& pool, std::string key) {
  auto job = [key](db::Resources& r) {
    auto value = db::read(r.db, [&](db::Tx& tx) {
      return r.db.exec_raw(tx, "SELECT code FROM currency_assets WHERE is_default")[0][0].as<std::string>();
    });
    r.redis.command({"SET", key, value});
    return r.redis.command({"GET", key}).str;
  };
  std::string v = co_await pool.run(std::move(job));
  co_return v;
}

TEST_F(BlockingPoolTest, GivesJobsAPostgresAndARedisConnection) {
  EXPECT_EQ(on_io(uses_the_stores(*pool, prefix + "pool")), "USD");
  EXPECT_GT(counters.db_queries.load(), 0u);
  EXPECT_GT(counters.redis_commands.load(), 0u);
}

asio::awaitable<long> many(db::BlockingPool& pool, int n) {
  long sum = 0;
  for (int i = 1; i <= n; ++i) {
    auto job = [i](db::Resources&) { return static_cast<long>(i); };
    sum += co_await pool.run(std::move(job));
  }
  co_return sum;
}

TEST_F(BlockingPoolTest, RunsManyJobsFromManyCoroutines) {
  std::vector<std::future<long>> results;
  for (int c = 0; c < 20; ++c) results.push_back(asio::co_spawn(ioc, many(*pool, 50), asio::use_future));
  for (auto& r : results) {
    ASSERT_EQ(r.wait_for(30s), std::future_status::ready);
    EXPECT_EQ(r.get(), 50 * 51 / 2);
  }
  EXPECT_EQ(pool->queued(), 0u);
}

TEST_F(BlockingPoolTest, ReportsItsThreads) {
  EXPECT_EQ(pool->threads(), 2);
  EXPECT_EQ(pool->busy(), 0u);
}

TEST_F(BlockingPoolTest, FinishesQueuedJobsWhenStopped) {
  std::atomic<int> done{0};
  for (int i = 0; i < 20; ++i) {
    pool->submit([&done](db::Resources&) {
      std::this_thread::sleep_for(5ms);
      done.fetch_add(1);
    });
  }
  pool->stop();
  EXPECT_EQ(done.load(), 20);
  EXPECT_EQ(pool->threads(), 0);
  pool->stop();  // a second stop is harmless
}

TEST_F(BlockingPoolTest, KeepsWorkingAfterAJobThrowsOutsideACoroutine) {
  pool->submit([](db::Resources&) { throw std::runtime_error("escaped"); });
  EXPECT_EQ(on_io(returns_a_value(*pool)), 42);
}

asio::awaitable<std::string> db_down(db::BlockingPool& pool) {
  auto job = [](db::Resources& r) {
    return db::read(r.db, [&](db::Tx& tx) { return r.db.exec_raw(tx, "SELECT 1").size(); });
  };
  try {
    co_await pool.run(std::move(job));
  } catch (const db::Unavailable&) {
    co_return "unavailable";
  } catch (const std::exception& e) {
    co_return std::string("other: ") + e.what();
  }
  co_return "succeeded";
}

TEST_F(BlockingPoolTest, ReportsAnUnreachableDatabaseAsUnavailable) {
  db::BlockingPool broken({.threads = 1, .database_url = "postgresql://nobody@127.0.0.1:1/none?connect_timeout=2",
                           .redis = {.url = redis_url}},
                          counters);
  EXPECT_EQ(on_io(db_down(broken)), "unavailable");
  broken.stop();
}

}  // namespace
}  // namespace mediagen::test
