#pragma once
// A bounded pool of threads for blocking calls (libpqxx, hiredis). Each thread owns one
// PostgreSQL and one Redis connection, so the pool size bounds the connections an instance opens.
// Coroutines `co_await pool.run(fn)`; fn runs on a pool thread and the coroutine resumes on
// its own executor. Nothing blocking ever runs on the I/O threads.
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <deque>
#include <exception>
#include <functional>
#include <memory>
#include <mutex>
#include <thread>
#include <type_traits>
#include <vector>

#include <boost/asio/associated_executor.hpp>
#include <boost/asio/async_result.hpp>
#include <boost/asio/awaitable.hpp>
#include <boost/asio/post.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/use_awaitable.hpp>

#include "mediagen/cache/redis.hpp"
#include "mediagen/core/counters.hpp"
#include "mediagen/db/connection.hpp"
#include "mediagen/db/db.hpp"

namespace mediagen::db {

struct Resources {
  Db& db;
  cache::Redis& redis;
};

struct BlockingPoolOptions {
  int threads = 8;
  // How long a request waits for its job, queueing included; then 503.
  std::chrono::milliseconds request_deadline{8000};
  ConnectLimits limits;
  std::string database_url;
  cache::RedisOptions redis;
  // Set on every connection of the pool (Db::set_commit_listener).
  Db::CommitListener on_commit;
};

class BlockingPool {
 public:
  BlockingPool(BlockingPoolOptions options, InfraCounters& counters);
  ~BlockingPool();
  BlockingPool(const BlockingPool&) = delete;
  BlockingPool& operator=(const BlockingPool&) = delete;

  // `fn` runs on a pool thread; the coroutine resumes on its own executor with fn's result, or
  // with db::Unavailable (a 503 for a request) when `deadline` passes while the job still waits
  // for a thread: it then never runs. A job that has started is always waited for, because it
  // may use what the coroutine's frame holds; the pool's watchdog cuts its PostgreSQL connection
  // once it runs past the deadline, so it ends with Unavailable soon after. A deadline of zero
  // waits as long as the job takes.
  //
  // `fn` travels to the pool thread behind a shared_ptr: asio's awaitable initiation is a
  // coroutine, and GCC 12 relocates coroutine arguments bitwise, which corrupts captured
  // std::strings (their small-string buffer points into the old frame).
  //
  // `owned` says fn holds everything it uses (no reference into the caller's frame): then the
  // deadline answers a running job too, and its late result is dropped (the readiness probe).
  template <class F>
  auto run(F fn_value, std::chrono::milliseconds deadline, bool owned = false) {
    using T = std::invoke_result_t<F&, Resources&>;
    using V = std::conditional_t<std::is_void_v<T>, Nothing, T>;
    static_assert(std::is_default_constructible_v<V>, "a failed job completes with T{} beside its exception");
    auto fn = std::make_shared<F>(std::move(fn_value));
    auto init = [this, deadline, owned](auto handler, std::shared_ptr<F> f) {
      using Handler = decltype(handler);
      auto ex = boost::asio::get_associated_executor(handler);
      auto call = std::make_shared<Call<Handler, V>>(std::move(handler), ex);
      if (deadline.count() > 0) {
        call->timer.expires_after(deadline);
        call->timer.async_wait([this, call, owned](const boost::system::error_code& ec) {
          using C = Call<Handler, V>;
          if (ec) return;
          if (!call->move(C::kQueued, C::kAnswered) && !(owned && call->move(C::kRunning, C::kAnswered))) return;
          counters_.pool_deadlines.fetch_add(1, std::memory_order_relaxed);
          call->finish(std::make_exception_ptr(Unavailable("no database answer within the deadline")), V{});
        });
      }
      submit([call, f = std::move(f), ex](Resources& r) mutable {
        using C = Call<Handler, V>;
        if (!call->move(C::kQueued, C::kRunning)) return;  // answered by its deadline: never start
        std::exception_ptr ep;
        V value{};
        try {
          if constexpr (std::is_void_v<T>) {
            (*f)(r);
          } else {
            value = (*f)(r);
          }
        } catch (...) {
          ep = std::current_exception();
        }
        // The exception travels on: this thread keeps no reference to it, so the last one is
        // dropped where it is handled.
        if (!call->move(C::kRunning, C::kDone)) return;  // an owned job answered by its deadline
        boost::asio::post(ex, [call, ep = std::move(ep), v = std::move(value)]() mutable {
          call->timer.cancel();
          call->finish(std::move(ep), std::move(v));
        });
      });
    };
    using boost::asio::use_awaitable_t;
    if constexpr (std::is_void_v<T>) {
      return boost::asio::async_initiate<const use_awaitable_t<>&, void(std::exception_ptr)>(
          std::move(init), boost::asio::use_awaitable, std::move(fn));
    } else {
      return boost::asio::async_initiate<const use_awaitable_t<>&, void(std::exception_ptr, T)>(
          std::move(init), boost::asio::use_awaitable, std::move(fn));
    }
  }

  // With the pool's own deadline for requests.
  template <class F>
  auto run(F fn) {
    return run(std::move(fn), options_.request_deadline);
  }

  // Runs fn on a pool thread without waiting (used by code that has no coroutine).
  void submit(std::function<void(Resources&)> job);

  // Shutdown after the grace period: jobs still queued are dropped (their callers are never
  // answered; their sockets close with the process) and running ones roll back at their commit.
  void abandon();

  // Finishes queued jobs (none after abandon()), then joins the threads.
  void stop();

  int threads() const { return static_cast<int>(threads_.size()); }
  InfraCounters& counters() { return counters_; }
  std::size_t busy() const { return busy_.load(std::memory_order_relaxed); }
  std::size_t queued() const;

 private:
  void loop(std::size_t index);

  struct Nothing {};

  // One awaited job: answered exactly once, by the job or by its deadline (while it waits for a
  // thread, or also while it runs when it is owned). The state's first move decides.
  template <class Handler, class V>
  struct Call {
    static constexpr int kQueued = 0, kRunning = 1, kDone = 2, kAnswered = 3;
    template <class Executor>
    Call(Handler h, const Executor& ex) : handler(std::move(h)), timer(ex) {}
    bool move(int from, int to) { return state.compare_exchange_strong(from, to, std::memory_order_acq_rel); }
    void finish(std::exception_ptr ep, V v) {
      if constexpr (std::is_same_v<V, Nothing>) {
        handler(std::move(ep));
      } else {
        handler(std::move(ep), std::move(v));
      }
    }
    Handler handler;
    boost::asio::steady_timer timer;
    std::atomic<int> state{kQueued};
  };

  // What the watchdog knows of each pool thread: its connection and since when its job runs.
  struct Slot {
    std::atomic<const Db*> db{nullptr};
    std::atomic<std::int64_t> started_ms{0};  // 0: idle
    std::atomic<std::uint64_t> job{0};
    std::uint64_t cut_job = 0;  // the watchdog's own: the last job whose connection it cut
  };
  void watch();

  BlockingPoolOptions options_;
  InfraCounters& counters_;
  mutable std::mutex mutex_;
  std::condition_variable cv_;
  std::condition_variable watch_cv_;  // the watchdog's own, so it never takes a job's wake-up
  std::deque<std::function<void(Resources&)>> jobs_;
  bool stopping_ = false;
  std::atomic<bool> closing_{false};
  std::atomic<std::size_t> busy_{0};
  std::vector<std::unique_ptr<Slot>> slots_;
  std::vector<std::thread> threads_;
  std::thread watchdog_;
};

}  // namespace mediagen::db
