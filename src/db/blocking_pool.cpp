#include "mediagen/db/blocking_pool.hpp"

#include <sys/socket.h>

#include "mediagen/core/contain.hpp"
#include "mediagen/core/log.hpp"
#include "mediagen/db/pg.hpp"

namespace mediagen::db {

namespace {

std::int64_t now_ms() {
  return std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::steady_clock::now().time_since_epoch())
      .count();
}

}  // namespace

BlockingPool::BlockingPool(BlockingPoolOptions options, InfraCounters& counters)
    : options_(std::move(options)), counters_(counters) {
  // Threads cannot report a bad address; refuse it here, where the caller can.
  (void)cache::RedisAddress::parse(options_.redis.url);
  threads_.reserve(static_cast<std::size_t>(options_.threads));
  for (int i = 0; i < options_.threads; ++i) slots_.push_back(std::make_unique<Slot>());
  for (int i = 0; i < options_.threads; ++i) {
    threads_.emplace_back([this, i] { loop(static_cast<std::size_t>(i)); });
  }
  if (options_.request_deadline.count() > 0) watchdog_ = std::thread([this] { watch(); });
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

void BlockingPool::abandon() {
  std::deque<std::function<void(Resources&)>> dropped;
  {
    std::lock_guard lock(mutex_);
    closing_.store(true, std::memory_order_release);
    dropped.swap(jobs_);
  }
  // Destroyed outside the lock: each holds the coroutine of a request that will not be answered.
}

void BlockingPool::stop() {
  {
    std::lock_guard lock(mutex_);
    if (stopping_ && threads_.empty()) return;
    stopping_ = true;
  }
  cv_.notify_all();
  watch_cv_.notify_all();
  for (auto& t : threads_) {
    if (t.joinable()) t.join();
  }
  threads_.clear();
  if (watchdog_.joinable()) watchdog_.join();
}

// A job past the deadline is stuck on PostgreSQL (a frozen backend answers no cancel, and its
// kernel still acknowledges our packets): shutting its socket down ends the wait at once, the job
// fails with Unavailable, and the connection is opened again on the next use.
void BlockingPool::watch() {
  const std::int64_t limit = options_.request_deadline.count();
  std::unique_lock lock(mutex_);
  while (!stopping_) {
    watch_cv_.wait_for(lock, std::chrono::milliseconds(200));
    const std::int64_t now = now_ms();
    for (auto& slot : slots_) {
      const std::uint64_t job = slot->job.load(std::memory_order_acquire);
      const std::int64_t started = slot->started_ms.load(std::memory_order_acquire);
      const Db* db = slot->db.load(std::memory_order_acquire);
      if (started == 0 || now - started <= limit || slot->cut_job == job || db == nullptr) continue;
      const int fd = db->socket_fd();
      // Still the same job: a later one must not lose its connection to this one's deadline.
      if (fd < 0 || slot->job.load(std::memory_order_acquire) != job) continue;
      slot->cut_job = job;
      counters_.pool_deadlines.fetch_add(1, std::memory_order_relaxed);  // before its caller resumes
      ::shutdown(fd, SHUT_RDWR);
      log::warn("database work ran past its deadline: its connection was cut", {{"ms", now - started}});
    }
  }
}

void BlockingPool::loop(std::size_t index) {
  // Connections are opened lazily, on the first job that needs them.
  Db db(options_.database_url, &counters_, options_.limits);
  cache::Redis redis(options_.redis, &counters_);
  Resources resources{db, redis};
  db.watch_pool(&closing_);
  db.set_commit_listener(options_.on_commit);
  Slot& slot = *slots_[index];
  slot.db.store(&db, std::memory_order_release);
  for (;;) {
    std::function<void(Resources&)> job;
    {
      std::unique_lock lock(mutex_);
      cv_.wait(lock, [&] { return stopping_ || !jobs_.empty(); });
      if (jobs_.empty()) break;  // stopping and drained
      job = std::move(jobs_.front());
      jobs_.pop_front();
    }
    busy_.fetch_add(1, std::memory_order_relaxed);
    slot.job.fetch_add(1, std::memory_order_acq_rel);
    slot.started_ms.store(now_ms(), std::memory_order_release);
    try {
      job(resources);
    } catch (...) {
      // Jobs report their own errors through their handlers; this is the last resort, and the
      // thread goes on with the next job.
      report_contained(&counters_, Boundary::job, std::current_exception(), {{"where", "blocking pool"}});
    }
    slot.started_ms.store(0, std::memory_order_release);
    busy_.fetch_sub(1, std::memory_order_relaxed);
  }
  std::lock_guard lock(mutex_);  // the watchdog reads the slot under it
  slot.db.store(nullptr, std::memory_order_release);
}

}  // namespace mediagen::db
