#include "mediagen/db/blocking_pool.hpp"

#include "mediagen/core/contain.hpp"
#include "mediagen/core/log.hpp"
#include "mediagen/db/pg.hpp"

namespace mediagen::db {

BlockingPool::BlockingPool(BlockingPoolOptions options, InfraCounters& counters)
    : options_(std::move(options)), counters_(counters) {
  // Threads cannot report a bad address; refuse it here, where the caller can.
  (void)cache::RedisAddress::parse(options_.redis.url);
  threads_.reserve(static_cast<std::size_t>(options_.threads));
  for (int i = 0; i < options_.threads; ++i) {
    threads_.emplace_back([this, i] { loop(static_cast<std::size_t>(i)); });
  }
}

BlockingPool::~BlockingPool() { stop(); }

void BlockingPool::submit(std::function<void(Resources&)> job) {
  {
    std::lock_guard lock(mutex_);
    jobs_.push_back(std::move(job));
  }
  cv_.notify_one();
}

std::size_t BlockingPool::queued() const {
  std::lock_guard lock(mutex_);
  return jobs_.size();
}

void BlockingPool::stop() {
  {
    std::lock_guard lock(mutex_);
    if (stopping_ && threads_.empty()) return;
    stopping_ = true;
  }
  cv_.notify_all();
  for (auto& t : threads_) {
    if (t.joinable()) t.join();
  }
  threads_.clear();
}

void BlockingPool::loop(std::size_t) {
  // Connections are opened lazily, on the first job that needs them.
  Db db(options_.database_url, &counters_);
  cache::Redis redis(options_.redis, &counters_);
  Resources resources{db, redis};
  for (;;) {
    std::function<void(Resources&)> job;
    {
      std::unique_lock lock(mutex_);
      cv_.wait(lock, [&] { return stopping_ || !jobs_.empty(); });
      if (jobs_.empty()) return;  // stopping and drained
      job = std::move(jobs_.front());
      jobs_.pop_front();
    }
    busy_.fetch_add(1, std::memory_order_relaxed);
    try {
      job(resources);
    } catch (...) {
      // Jobs report their own errors through their handlers; this is the last resort, and the
      // thread goes on with the next job.
      report_contained(&counters_, Boundary::job, std::current_exception(), {{"where", "blocking pool"}});
    }
    busy_.fetch_sub(1, std::memory_order_relaxed);
  }
}

}  // namespace mediagen::db
