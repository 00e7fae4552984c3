#pragma once
// Threads for object-store reads that stream to clients (downloads). They hold no PostgreSQL
// connection: a download neither waits behind database work on the blocking pool (nor stops
// when PostgreSQL hangs) nor keeps a connection busy while its bytes flow, and the I/O threads
// never wait on a disk or a remote store. Each job is one bounded piece, so a few threads serve
// any number of downloads.
#include <exception>
#include <memory>
#include <type_traits>
#include <utility>

#include <boost/asio/associated_executor.hpp>
#include <boost/asio/async_result.hpp>
#include <boost/asio/post.hpp>
#include <boost/asio/thread_pool.hpp>
#include <boost/asio/use_awaitable.hpp>

namespace mediagen::storage {

class ReadPool {
 public:
  explicit ReadPool(int threads) : pool_(static_cast<std::size_t>(threads < 1 ? 1 : threads)) {}
  ~ReadPool() { pool_.join(); }
  ReadPool(const ReadPool&) = delete;
  ReadPool& operator=(const ReadPool&) = delete;

  // `co_await pool.run(fn)`: fn() runs on a pool thread, the coroutine resumes on its own
  // executor with fn's value (or its exception). fn travels behind a shared_ptr for the reason
  // BlockingPool::run gives.
  template <class F>
  auto run(F fn_value) {
    using T = std::invoke_result_t<F&>;
    static_assert(std::is_default_constructible_v<T>, "a failed job completes with T{} beside its exception");
    auto fn = std::make_shared<F>(std::move(fn_value));
    using boost::asio::use_awaitable_t;
    return boost::asio::async_initiate<const use_awaitable_t<>&, void(std::exception_ptr, T)>(
        [this](auto handler, std::shared_ptr<F> f) {
          boost::asio::post(pool_, [h = std::move(handler), f = std::move(f)]() mutable {
            std::exception_ptr ep;
            T value{};
            try {
              value = (*f)();
            } catch (...) {
              ep = std::current_exception();
            }
            auto ex = boost::asio::get_associated_executor(h);
            boost::asio::post(ex, [h = std::move(h), ep = std::move(ep), v = std::move(value)]() mutable {
              std::move(h)(std::move(ep), std::move(v));
            });
          });
        },
        boost::asio::use_awaitable, std::move(fn));
  }

 private:
  boost::asio::thread_pool pool_;
};

}  // namespace mediagen::storage
