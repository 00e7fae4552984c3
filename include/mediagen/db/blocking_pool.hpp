#pragma once
// A bounded pool of threads for blocking calls (libpqxx, hiredis). Each thread owns one
// PostgreSQL and one Redis connection, so the pool size bounds the connections an instance opens.
// Coroutines `co_await pool.run(fn)`; fn runs on a pool thread and the coroutine resumes on
// its own executor. Nothing blocking ever runs on the I/O threads.
#include <atomic>
#include <condition_variable>
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
#include <boost/asio/use_awaitable.hpp>

#include "mediagen/cache/redis.hpp"
#include "mediagen/core/counters.hpp"
#include "mediagen/db/db.hpp"

namespace mediagen::db {

struct Resources {
  Db& db;
  cache::Redis& redis;
};

struct BlockingPoolOptions {
  int threads = 8;
  std::string database_url;
  cache::RedisOptions redis;
};

class BlockingPool {
 public:
  BlockingPool(BlockingPoolOptions options, InfraCounters& counters);
  ~BlockingPool();
  BlockingPool(const BlockingPool&) = delete;
  BlockingPool& operator=(const BlockingPool&) = delete;

  // `fn` travels to the pool thread behind a shared_ptr: asio's awaitable initiation is a
  // coroutine, and GCC 12 relocates coroutine arguments bitwise, which corrupts captured
  // std::strings (their small-string buffer points into the old frame).
  template <class F>
  auto run(F fn_value) {
    using T = std::invoke_result_t<F&, Resources&>;
    auto fn = std::make_shared<F>(std::move(fn_value));
    using boost::asio::use_awaitable_t;
    if constexpr (std::is_void_v<T>) {
      return boost::asio::async_initiate<const use_awaitable_t<>&, void(std::exception_ptr)>(
          [this](auto handler, std::shared_ptr<F> f) {
            submit([h = std::make_shared<decltype(handler)>(std::move(handler)), f = std::move(f)](Resources& r) mutable {
              std::exception_ptr ep;
              try {
                (*f)(r);
              } catch (...) {
                ep = std::current_exception();
              }
              auto ex = boost::asio::get_associated_executor(*h);
              // The exception travels on: this thread keeps no reference to it, so the last one
              // is dropped where it is handled.
              boost::asio::post(ex, [h, ep = std::move(ep)]() mutable { (*h)(std::move(ep)); });
            });
          },
          boost::asio::use_awaitable, std::move(fn));
    } else {
      static_assert(std::is_default_constructible_v<T>, "a failed job completes with T{} beside its exception");
      return boost::asio::async_initiate<const use_awaitable_t<>&, void(std::exception_ptr, T)>(
          [this](auto handler, std::shared_ptr<F> f) {
            submit([h = std::make_shared<decltype(handler)>(std::move(handler)), f = std::move(f)](Resources& r) mutable {
              std::exception_ptr ep;
              T value{};
              try {
                value = (*f)(r);
              } catch (...) {
                ep = std::current_exception();
              }
              auto ex = boost::asio::get_associated_executor(*h);
              boost::asio::post(ex, [h, ep = std::move(ep), v = std::move(value)]() mutable {
                (*h)(std::move(ep), std::move(v));
              });
            });
          },
          boost::asio::use_awaitable, std::move(fn));
    }
  }

  // Runs fn on a pool thread without waiting (used by code that has no coroutine).
  void submit(std::function<void(Resources&)> job);

  // Finishes queued jobs, then joins the threads.
  void stop();

  int threads() const { return static_cast<int>(threads_.size()); }
  InfraCounters& counters() { return counters_; }
  std::size_t busy() const { return busy_.load(std::memory_order_relaxed); }
  std::size_t queued() const;

 private:
  void loop(std::size_t index);

  BlockingPoolOptions options_;
  InfraCounters& counters_;
  mutable std::mutex mutex_;
  std::condition_variable cv_;
  std::deque<std::function<void(Resources&)>> jobs_;
  bool stopping_ = false;
  std::atomic<std::size_t> busy_{0};
  std::vector<std::thread> threads_;
};

}  // namespace mediagen::db
