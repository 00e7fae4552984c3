#pragma once
// AsyncPg's insides (async_pg.hpp), shared by its two files: a connection with its socket watcher
// and deadline timer, and the state the pool's coroutines and handlers share.
#include <atomic>
#include <chrono>
#include <deque>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <unordered_set>
#include <vector>

#include <boost/asio/awaitable.hpp>
#include <boost/asio/posix/stream_descriptor.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/thread_pool.hpp>

#include "mediagen/db/async_pg.hpp"

struct pg_conn;  // libpq's PGconn

namespace mediagen::db {

using Deadline = std::chrono::steady_clock::time_point;

// What the deadline's handler needs to cut a connection, kept apart from the connection so that a
// handler that fires as the connection ends finds it closed rather than freed. `seq` names the
// exchange the timer was armed for: a late handler of an earlier one cuts nothing.
struct CutGuard {
  std::mutex mutex;
  int fd = -1;
  std::uint64_t seq = 0;
  bool closed = false;
  bool cut = false;
};

// One connection in pipeline mode. Used by one coroutine at a time (it is lent, not shared).
struct PgConn {
  PgConn(boost::asio::io_context& io, pg_conn* conn);
  ~PgConn();
  PgConn(const PgConn&) = delete;
  PgConn& operator=(const PgConn&) = delete;

  pg_conn* pg;
  boost::asio::posix::stream_descriptor socket;  // watches libpq's descriptor, never owns it
  boost::asio::steady_timer timer;               // the deadline of the exchange under way
  std::shared_ptr<CutGuard> cut;
  std::unordered_set<std::string> prepared;  // statement names prepared on this connection
};

struct AsyncPg::State : std::enable_shared_from_this<AsyncPg::State> {
  State(boost::asio::io_context& io, AsyncPgOptions options, InfraCounters& counters);
  ~State();

  // A connection handed to a waiter, or leave to open one (the place is reserved for it), or
  // neither: its deadline passed or the pool closed.
  struct Grant {
    std::unique_ptr<PgConn> conn;
    bool may_open = false;
  };
  struct Waiter {
    explicit Waiter(boost::asio::io_context& io) : timer(io) {}
    std::atomic<bool> answered{false};  // the first to set it answers: a giver or the deadline
    boost::asio::steady_timer timer;
    std::function<void(Grant)> answer;
  };

  // A lent connection; given back when the lease ends, or dropped when it broke.
  class Lease {
   public:
    Lease(std::shared_ptr<State> state, std::unique_ptr<PgConn> conn)
        : state_(std::move(state)), conn_(std::move(conn)) {}
    Lease(Lease&&) = default;
    Lease& operator=(Lease&&) = delete;
    ~Lease() {
      if (!state_) return;
      if (broken_) conn_.reset();
      state_->give_back(std::move(conn_));
    }
    PgConn& conn() { return *conn_; }
    void broke() { broken_ = true; }

   private:
    std::shared_ptr<State> state_;
    std::unique_ptr<PgConn> conn_;
    bool broken_ = false;
  };

  boost::asio::awaitable<Lease> lend(Deadline deadline_at);
  boost::asio::awaitable<Grant> wait_for_one(Deadline deadline_at);
  boost::asio::awaitable<std::unique_ptr<PgConn>> open_one();
  // nullptr: the lent connection broke; its place is free again.
  void give_back(std::unique_ptr<PgConn> conn);
  // Sends the queries, waits for every answer (async_pg_exchange.cpp).
  boost::asio::awaitable<std::vector<PgResult>> exchange(Lease& lease, const std::vector<PgQuery>& queries,
                                                         Deadline deadline_at);

  boost::asio::io_context& io;
  const AsyncPgOptions options;
  InfraCounters& counters;
  boost::asio::thread_pool connector{1};  // opens connections: libpq's connect blocks

  mutable std::mutex mutex;
  std::vector<std::unique_ptr<PgConn>> idle;
  std::size_t open = 0;  // connections idle, lent or being opened
  std::deque<std::shared_ptr<Waiter>> waiters;
  bool closed = false;
};

}  // namespace mediagen::db
