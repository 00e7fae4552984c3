#pragma once
// The generation workers of one instance.
//
// Threads: `workers` threads each with its own PostgreSQL connection loop claim -> engine ->
// storage -> complete/fail -> stitch when the order is ready. Idle workers block on a condition
// variable: no polling loop. They are woken after a commit put work in the queue: wake() (order
// creation here, or a message from another instance) and this pool's own requeues. One timer
// thread wakes them every `wake_interval` anyway, the safety net for a wake-up lost on its way
// (a message missed while Redis reconnected). While the engine runs, the claim's lease is
// extended every lease/3.
// One sweeper thread, every `sweep_interval`: expired leases back to the queue, expired
// stitches redone, the janitor (retention, compensation).
//
// stop() drains: no new claims, the chunks in flight go back to the queue at once (their late
// completions are fenced out), threads joined. Several instances share one database safely.
#include <chrono>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "mediagen/core/counters.hpp"
#include "mediagen/db/connection.hpp"
#include "mediagen/orders/limits.hpp"
#include "mediagen/workers/content_check.hpp"

namespace mediagen::storage {
class ObjectStore;
}

namespace mediagen::orders {
struct OrderChange;
}

namespace mediagen::engines {
class PromptEngine;
class Upstreams;
}

namespace mediagen::workers {

class SpeechSource;
namespace detail {
struct PoolState;
}

struct WorkerPoolOptions {
  int workers = 1;
  std::chrono::milliseconds lease{std::chrono::seconds(30)};
  std::chrono::milliseconds stitch_lease{std::chrono::seconds(120)};
  // How long after a failed stitch attempt the sweeper hands it out again.
  std::chrono::milliseconds stitch_retry_delay{std::chrono::seconds(10)};
  std::chrono::milliseconds wake_interval{std::chrono::seconds(3)};
  std::chrono::milliseconds sweep_interval{std::chrono::seconds(5)};
  std::chrono::seconds retention{std::chrono::hours(24 * 7)};
  std::chrono::seconds compensate_after{std::chrono::hours(24 * 3)};
  ContentRules content;                      // policy terms and the fault-drill marker
  orders::PolicyCooldown cooldown;           // what a policy-flagged order adds to its user's streak
  std::chrono::milliseconds engine_delay{0};  // crash drills: a pause before each chunk's engine call
  std::string speech_engine = "espeak";      // the orders.engine_request "engine" the source serves
  // Sound-effect and music engines by their orders.engine_request "engine" name; not owned (they
  // outlive the pool). A chunk whose engine is in neither fails as engine_unavailable.
  std::map<std::string, engines::PromptEngine*, std::less<>> prompt_engines;
  // The upstream provider engines, not owned (the App's: their caps and breakers are shared by
  // every worker); null: chunks of an upstream engine fail as engine_unavailable.
  engines::Upstreams* upstreams = nullptr;
  db::ConnectLimits db_limits;                // the workers' PostgreSQL timeouts (the operator's settings)
  db::Db::CommitListener on_commit;           // set on every connection of the pool (Db::set_commit_listener)
  // Called after each commit that changed an order's or an item's status (claims, settles,
  // stitches, requeues, janitor), from the pool's threads: the realtime publisher's hook.
  // Must not block for long; may be empty.
  std::function<void(const orders::OrderChange&)> on_change;
  // Called after a commit that put chunks back in the queue (lease rescue, drain), from the
  // pool's threads. This pool's idle workers are woken already; the hook tells other instances.
  // Must not block for long; may be empty.
  std::function<void()> on_requeued;
  // Other kinds of work the workers take when no chunk is waiting (a clone's analysis): each call
  // claims and runs at most one job on the worker's own connection and says whether it found
  // one. Such a job leases its own rows and settles them itself; what it throws is contained.
  std::vector<std::function<bool(db::Db&)>> side_jobs;
};

// What the metrics show of the pool (App::add_gauges).
struct WorkerStats {
  int threads = 0;          // generation threads started
  std::size_t busy = 0;     // chunks being made now
  std::optional<std::int64_t> pending;  // chunks waiting, all instances, at the last sweep
  std::uint64_t completed = 0;          // chunks this pool completed since start
  std::map<std::string, std::uint64_t, std::less<>> failed;  // chunks it failed, by reason
};

class WorkerPool {
 public:
  WorkerPool(WorkerPoolOptions options, SpeechSource& speech, storage::ObjectStore& store, std::string database_url,
             InfraCounters& counters);
  ~WorkerPool();  // stop()
  WorkerPool(const WorkerPool&) = delete;
  WorkerPool& operator=(const WorkerPool&) = delete;

  void start();
  void stop();
  // Work was committed (here or by another instance): idle workers look for it now. Cheap and
  // non-blocking; callable from any thread.
  void wake();

  // Chunks settled by this pool since start (completed + failed); for tests and metrics.
  std::uint64_t settled_chunks() const;
  WorkerStats stats() const;

 private:
  std::unique_ptr<detail::PoolState> state_;
};

}  // namespace mediagen::workers
