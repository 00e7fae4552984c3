#include "mediagen/workers/worker_pool.hpp"

#include <atomic>
#include <condition_variable>
#include <mutex>
#include <set>
#include <stop_token>
#include <thread>
#include <vector>

#include "chunk_job.hpp"
#include "engine_request.hpp"
#include "mediagen/core/contain.hpp"
#include "mediagen/core/log.hpp"
#include "mediagen/db/connection.hpp"
#include "mediagen/orders/queue.hpp"
#include "mediagen/workers/janitor.hpp"
#include "mediagen/workers/speech_source.hpp"
#include "mediagen/workers/stitcher.hpp"
#include "mediagen/voices/voice_search.hpp"

namespace mediagen::workers {

using std::chrono::milliseconds;
using std::chrono::steady_clock;

namespace detail {

struct PoolState {
  WorkerPoolOptions options;
  SpeechSource& speech;
  storage::ObjectStore& store;
  std::string url;
  InfraCounters& counters;

  std::mutex mutex;
  std::condition_variable cv;
  std::uint64_t generation = 0;  // moves on every wake-up; idle workers wait for it to move
  bool started = false;
  bool stopping = false;
  std::set<LeaseToken> in_flight;  // lease tokens held by this pool's workers
  voices::VoiceIndexCache voice_index;  // the catalogue's descriptions, shared by the workers
  std::atomic<std::uint64_t> settled{0};
  std::vector<std::thread> threads;
  int worker_threads = 0;
  // For the metrics; under `mutex`.
  std::optional<std::int64_t> pending;
  std::uint64_t completed = 0;
  std::map<std::string, std::uint64_t, std::less<>> failed;

  PoolState(WorkerPoolOptions o, SpeechSource& sp, storage::ObjectStore& st, std::string u, InfraCounters& c)
      : options(std::move(o)), speech(sp), store(st), url(std::move(u)), counters(c) {}

  void count_outcome(const detail::ChunkResult& result) {
    std::lock_guard lock(mutex);
    if (const auto* f = std::get_if<detail::ChunkFailure>(&result)) {
      ++failed[f->reason];
    } else {
      ++completed;
    }
  }

  bool is_stopping() {
    std::lock_guard lock(mutex);
    return stopping;
  }

  std::uint64_t current_generation() {
    std::lock_guard lock(mutex);
    return generation;
  }

  void wake() {
    {
      std::lock_guard lock(mutex);
      ++generation;
    }
    cv.notify_all();
  }

  void wait_for_work(std::uint64_t seen) {
    std::unique_lock lock(mutex);
    cv.wait(lock, [&] { return stopping || generation != seen; });
  }

  // False when the pool is stopping (at once or during the sleep).
  bool sleep_for(milliseconds d) {
    std::unique_lock lock(mutex);
    return !cv.wait_for(lock, d, [&] { return stopping; });
  }

  // False when the pool is stopping: the claim must go back at once, stop() may have missed it.
  bool hold(const LeaseToken& token) {
    std::lock_guard lock(mutex);
    if (stopping) return false;
    in_flight.insert(token);
    return true;
  }

  void publish(const std::vector<orders::OrderChange>& changes) {
    if (!options.on_change) return;
    for (const auto& c : changes) options.on_change(c);
  }

  // Chunks went back to the queue (committed): idle workers here look now, others are told.
  void requeued() {
    wake();
    if (options.on_requeued) options.on_requeued();
  }

  void drop(const LeaseToken& token) {
    std::lock_guard lock(mutex);
    in_flight.erase(token);
  }
};

}  // namespace detail

namespace {

using State = detail::PoolState;

orders::QueueOptions queue_options(const WorkerPoolOptions& o) {
  return {.stitch_lease = o.stitch_lease, .stitch_retry_delay = o.stitch_retry_delay, .cooldown = o.cooldown};
}

// The safety net for a lost wake-up: idle workers look at the queue every wake_interval.
void timer_loop(State& s) {
  while (s.sleep_for(s.options.wake_interval)) s.wake();
}

// Extends the lease every lease/3 until stopped; records until when the lease is known to hold.
void heartbeat_loop(State& s, orders::WorkQueue& queue, const orders::ClaimedChunk& c, std::atomic<std::int64_t>& lease_end_ms,
                    std::stop_token stop) {
  std::mutex m;
  std::condition_variable_any cv;
  const auto interval = std::max(milliseconds(1), s.options.lease / 3);
  std::unique_lock lock(m);
  while (true) {
    cv.wait_for(lock, stop, interval, [] { return false; });
    if (stop.stop_requested()) return;
    try {
      const auto at = steady_clock::now();
      if (!queue.heartbeat(c.item_id, c.lease_token, s.options.lease)) {
        log::warn("lease lost", {{"item_id", c.item_id}});
        return;
      }
      lease_end_ms = std::chrono::duration_cast<milliseconds>((at + s.options.lease).time_since_epoch()).count();
    } catch (const std::exception& e) {
      log::warn("heartbeat failed", {{"item_id", c.item_id}, {"error", e.what()}});
    }
  }
}

// Settles the chunk; while PostgreSQL is unreachable, tries again until the lease is surely gone
// (then the sweeper of some instance requeues it).
orders::Settled settle(State& s, orders::WorkQueue& queue, const orders::ClaimedChunk& c, const detail::ChunkResult& result,
               const std::atomic<std::int64_t>& lease_end_ms) {
  while (true) {
    try {
      if (const auto* out = std::get_if<orders::ChunkOutput>(&result)) return queue.complete(c.item_id, c.lease_token, *out);
      const auto& failure = std::get<detail::ChunkFailure>(result);
      return queue.fail(c.item_id, c.lease_token, failure.kind, failure.reason);
    } catch (const db::Unavailable& e) {
      const auto now_ms = std::chrono::duration_cast<milliseconds>(steady_clock::now().time_since_epoch()).count();
      if (now_ms > lease_end_ms.load()) {
        log::warn("settle abandoned: lease over", {{"item_id", c.item_id}, {"error", e.what()}});
        return {};
      }
      std::this_thread::sleep_for(std::chrono::milliseconds(500));
    } catch (...) {
      // The lease runs out and the sweeper takes the chunk back: nothing is lost or charged twice.
      report_contained(&s.counters, Boundary::job, std::current_exception(), {{"item_id", c.item_id}});
      return {};
    }
  }
}

void run_stitch(State& s, Stitcher& stitcher, orders::WorkQueue& queue, const orders::StitchJob& job) {
  // A database outage is tried again within the lease (as a chunk's settling is), so a restart
  // spends none of the order's few stitch attempts; the stitch is idempotent under its token.
  const auto lease_end = steady_clock::now() + s.options.stitch_lease - std::chrono::seconds(1);
  while (true) {
    try {
      std::vector<orders::OrderChange> changes;
      stitcher.stitch(queue, job, &changes);
      return s.publish(changes);
    } catch (const db::Unavailable& e) {
      if (steady_clock::now() >= lease_end || s.is_stopping()) {
        return log::warn("stitch left to the sweeper", {{"order_id", job.order_id}, {"error", e.what()}});
      }
      std::this_thread::sleep_for(std::chrono::milliseconds(500));
    } catch (...) {
      // The stitch lease runs out and the sweeper hands the stitch out again (counted as an attempt).
      report_contained(&s.counters, Boundary::job, std::current_exception(), {{"order_id", job.order_id}});
      return;
    }
  }
}

void process(State& s, db::Db& db, orders::WorkQueue& queue, Stitcher& stitcher, const orders::ClaimedChunk& c) {
  // Read before the heartbeat starts: from then on it shares this worker's connection.
  std::shared_ptr<const voices::VoiceIndex> index;
  if (c.task_type == TaskType::voice_search) index = s.voice_index.current(db);
  orders::ChunkNeighbours around;
  if (c.task_type == TaskType::tts && detail::takes_neighbours(c.engine_request_json)) {
    // Continuity is a nicety: a failed read leaves the chunk without it rather than failing it.
    try {
      around = queue.neighbours(c.order_id, c.chunk_index);
    } catch (const std::exception& e) {
      log::warn("chunk neighbours unread", {{"order_id", c.order_id.str()}, {"error", e.what()}});
    }
  }
  const detail::ChunkContext context{s.speech, s.store, s.options.content, s.options.speech_engine,
                                     s.options.prompt_engines,
                                     [&s] { return s.sleep_for(s.options.engine_delay); },
                                     [index] { return index; }, s.options.upstreams, std::move(around)};
  std::atomic<std::int64_t> lease_end_ms{
      std::chrono::duration_cast<milliseconds>((steady_clock::now() + s.options.lease).time_since_epoch()).count()};
  detail::ChunkResult result;
  {
    // Joined before settling: the heartbeat shares this worker's connection.
    std::jthread heartbeat([&](std::stop_token stop) { heartbeat_loop(s, queue, c, lease_end_ms, stop); });
    try {
      result = detail::run_chunk(c, context);
    } catch (...) {
      // The job's boundary: whatever the engine or the store threw fails this chunk alone, as a
      // technical failure (its money goes back by the chunk's rules).
      const auto error = std::current_exception();
      report_contained(&s.counters, Boundary::job, error, {{"item_id", c.item_id}});
      result = detail::ChunkFailure{orders::FailureKind::technical, "engine_error", describe(error)};
    }
  }
  if (std::holds_alternative<detail::Abandoned>(result)) return;
  if (const auto* f = std::get_if<detail::ChunkFailure>(&result)) {
    log::info("chunk failed", {{"item_id", c.item_id}, {"reason", f->reason}, {"detail", f->detail}});
  }
  const orders::Settled settled = settle(s, queue, c, result, lease_end_ms);
  if (!settled.applied) {
    log::info("chunk result discarded: lease lost", {{"item_id", c.item_id}});
    return;
  }
  s.settled.fetch_add(1, std::memory_order_relaxed);
  s.count_outcome(result);
  s.publish(settled.changes);
  if (settled.stitch) run_stitch(s, stitcher, queue, *settled.stitch);
}

// True when one of the side jobs found work (the worker then looks again before it sleeps).
bool run_side_jobs(State& s, db::Db& db) {
  bool found = false;
  for (const auto& job : s.options.side_jobs) {
    try {
      found = job(db) || found;
    } catch (const db::Unavailable& e) {  // an outage, not a fault of the job: the next round tries again
      log::warn("side jobs paused: database unavailable", {{"error", e.what()}});
      return found;
    } catch (...) {
      report_contained(&s.counters, Boundary::job, std::current_exception(), {{"job", "side"}});
    }
  }
  return found;
}

void worker_loop(State& s) {
  db::Db db(s.url, &s.counters, s.options.db_limits);
  db.set_commit_listener(s.options.on_commit);
  orders::WorkQueue queue(db, queue_options(s.options));
  Stitcher stitcher(s.store);
  while (!s.is_stopping()) {
    const auto seen = s.current_generation();
    std::optional<orders::ClaimedChunk> chunk;
    try {
      chunk = queue.claim(s.options.lease);
    } catch (...) {
      log::warn("claim failed", {{"error", std::string_view(describe(std::current_exception()))}});
      s.sleep_for(std::chrono::seconds(1));
      continue;
    }
    if (!chunk) {
      if (run_side_jobs(s, db)) continue;
      s.wait_for_work(seen);
      continue;
    }
    if (!s.hold(chunk->lease_token)) {
      try {
        if (queue.release_own(std::span<const LeaseToken>(&chunk->lease_token, 1)) > 0 && s.options.on_requeued) {
          s.options.on_requeued();
        }
      } catch (const std::exception& e) {
        log::warn("drain: release failed", {{"item_id", chunk->item_id}, {"error", e.what()}});
      }
      return;
    }
    try {
      s.publish(chunk->changes);
      process(s, db, queue, stitcher, *chunk);
    } catch (...) {  // outside the engine (publishing, logging): the lease runs out, the chunk is requeued
      report_contained(&s.counters, Boundary::job, std::current_exception(), {{"item_id", chunk->item_id}});
    }
    s.drop(chunk->lease_token);
  }
}

void sweeper_loop(State& s) {
  db::Db db(s.url, &s.counters, s.options.db_limits);
  db.set_commit_listener(s.options.on_commit);
  orders::WorkQueue queue(db, queue_options(s.options));
  Stitcher stitcher(s.store);
  Janitor janitor(db, s.store, {.retention = s.options.retention, .compensate_after = s.options.compensate_after});
  do {
    try {
      const auto swept = queue.release_expired_leases();
      s.publish(swept.changes);
      if (swept.requeued > 0) s.requeued();
      if (swept.requeued > 0 || swept.failed > 0) {
        log::info("expired leases", {{"requeued", swept.requeued}, {"failed_chunks", swept.failed}});
      }
      std::vector<orders::OrderChange> gave_up;
      const auto jobs = queue.expired_stitches(20, &gave_up);
      s.publish(gave_up);
      for (const auto& job : jobs) run_stitch(s, stitcher, queue, job);
      const std::int64_t pending = queue.pending_chunks();
      {
        std::lock_guard lock(s.mutex);
        s.pending = pending;
      }
      const auto cleaned = janitor.run_once();
      s.publish(cleaned.changes);
      if (cleaned.files_removed > 0 || cleaned.compensated > 0) {
        log::info("janitor", {{"files_removed", cleaned.files_removed}, {"compensated_orders", cleaned.compensated}});
      }
    } catch (...) {
      log::warn("sweep failed", {{"error", std::string_view(describe(std::current_exception()))}});
    }
  } while (s.sleep_for(s.options.sweep_interval));
}

}  // namespace

WorkerPool::WorkerPool(WorkerPoolOptions options, SpeechSource& speech, storage::ObjectStore& store,
                       std::string database_url, InfraCounters& counters)
    : state_(std::make_unique<detail::PoolState>(std::move(options), speech, store, std::move(database_url), counters)) {}

WorkerPool::~WorkerPool() { stop(); }

void WorkerPool::start() {
  std::lock_guard lock(state_->mutex);
  if (state_->started) return;
  state_->started = true;
  detail::PoolState& s = *state_;
  s.threads.emplace_back([&s] { timer_loop(s); });
  s.threads.emplace_back([&s] { sweeper_loop(s); });
  s.worker_threads = std::max(1, s.options.workers);
  for (int i = 0; i < s.worker_threads; ++i) s.threads.emplace_back([&s] { worker_loop(s); });
}

void WorkerPool::stop() {
  detail::PoolState& s = *state_;
  std::vector<LeaseToken> tokens;
  {
    std::lock_guard lock(s.mutex);
    if (!s.started || s.stopping) return;
    s.stopping = true;
    tokens.assign(s.in_flight.begin(), s.in_flight.end());
  }
  s.cv.notify_all();
  if (!tokens.empty()) {
    try {
      db::Db db(s.url, &s.counters, s.options.db_limits);
      db.set_commit_listener(s.options.on_commit);
      orders::WorkQueue queue(db, queue_options(s.options));
      std::vector<orders::OrderChange> changes;
      const int released = queue.release_own(tokens, &changes);
      s.publish(changes);
      // Only other instances' workers can take them now.
      if (released > 0 && s.options.on_requeued) s.options.on_requeued();
      log::info("workers drained", {{"released", released}});
    } catch (const std::exception& e) {
      // Their leases run out instead; another instance's sweeper requeues them.
      log::warn("drain: release failed", {{"error", e.what()}});
    }
  }
  for (auto& t : s.threads) t.join();
  s.threads.clear();
}

void WorkerPool::wake() { state_->wake(); }

std::uint64_t WorkerPool::settled_chunks() const { return state_->settled.load(std::memory_order_relaxed); }

WorkerStats WorkerPool::stats() const {
  std::lock_guard lock(state_->mutex);
  const detail::PoolState& s = *state_;
  return {.threads = s.stopping ? 0 : s.worker_threads, .busy = s.in_flight.size(), .pending = s.pending,
          .completed = s.completed, .failed = s.failed};
}

}  // namespace mediagen::workers
