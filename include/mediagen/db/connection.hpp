#pragma once
// The PostgreSQL connection of one thread (libpqxx connections are not thread-safe), opened on
// first use and after a failure. Owners (pools, workers, the event publisher) see only this
// header; the statements it runs are in stores, which include pg.hpp for exec().
#include <atomic>
#include <cstdint>
#include <functional>
#include <memory>
#include <set>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include "mediagen/core/counters.hpp"
#include "mediagen/db/db.hpp"

namespace pqxx {
class connection_base;
class result;
}  // namespace pqxx

namespace mediagen::db {

namespace detail {
struct Connection;  // the libpqxx connection (pg.hpp)
}

// What a connection may wait for. A stalled or unreachable PostgreSQL ends a statement, a lock
// wait or a connection attempt with an error (a 503 for a request) instead of holding a thread.
// The server enforces the statement and lock limits; the client enforces connect and keepalives.
struct ConnectLimits {
  int connect_timeout_seconds = 3;
  int statement_timeout_ms = 8000;
  int lock_timeout_ms = 4000;
  int idle_in_transaction_ms = 30000;
  int keepalive_idle_seconds = 10;  // then a probe every 3 s, dead after 3 unanswered
};

// `url` (a URI or key=value string) with the limits added; parameters the operator set in the URL
// win (their `options` come after ours). Throws Unavailable when libpq cannot parse the URL.
std::string connection_string(const std::string& url, const ConnectLimits& limits);

// A named SQL statement, prepared once per connection on first use.
struct Statement {
  const char* name;
  const char* sql;
};

// Thrown when PostgreSQL cannot be reached; the request answers 503 and the connection is reopened.
class Unavailable : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// Errors that say PostgreSQL is stalled, going down or out of room, not that the statement is
// wrong: a statement or lock timeout, an operator's cancel or shutdown, too many connections.
bool sqlstate_means_unavailable(std::string_view sqlstate);

class Db {
 public:
  Db(std::string url, InfraCounters* counters, ConnectLimits limits = {});
  ~Db();
  Db(const Db&) = delete;
  Db& operator=(const Db&) = delete;

  // The open connection, opened (again) when needed; throws Unavailable when it cannot be.
  pqxx::connection_base& conn();

  // Drops the connection after a failure so the next use starts clean.
  void reset();

  // Runs a prepared statement (defined in pg.hpp, for stores).
  template <class... Args>
  pqxx::result exec(Tx& tx, const Statement& st, Args&&... args);

  pqxx::result exec_raw(Tx& tx, const std::string& sql);

  // One round trip ("SELECT 1"): the readiness probe's question. Throws like any statement.
  void ping();

  void count();

  // The users whose profile (GET /user: their wallet, subscription or row) a transaction changed
  // are told to the commit listener once it committed, so that cached profiles are dropped
  // (account/profile_cache.hpp). A rollback forgets them. Stores call profile_changed inside the
  // transaction; the owner of the connection sets the listener once.
  using CommitListener = std::function<void(const std::vector<std::int64_t>&)>;
  void set_commit_listener(CommitListener listener) { commit_listener_ = std::move(listener); }
  void profile_changed(std::int64_t user_id) { changed_users_.push_back(user_id); }
  // run_transaction's: after a commit (tells the listener), before an attempt or after a rollback.
  void transaction_committed();
  void transaction_forgotten() { changed_users_.clear(); }

  // The server is past its grace period: a transaction that has not committed yet rolls back
  // instead. Set by the pool that runs the jobs (nullptr: not watched).
  void watch_pool(const std::atomic<bool>* pool_closing) { pool_closing_ = pool_closing; }
  bool abandoned() const { return pool_closing_ && pool_closing_->load(std::memory_order_acquire); }

  // The descriptor of the open connection (-1: none), refreshed on the owning thread at each
  // use, for a watchdog that cuts a connection whose job ran past its deadline.
  int socket_fd() const { return socket_fd_.load(std::memory_order_acquire); }

 private:
  std::string url_;
  InfraCounters* counters_;
  ConnectLimits limits_;
  const std::atomic<bool>* pool_closing_ = nullptr;
  std::atomic<int> socket_fd_{-1};
  std::unique_ptr<detail::Connection> conn_;
  std::set<std::string, std::less<>> prepared_;
  CommitListener commit_listener_;
  std::vector<std::int64_t> changed_users_;
};

}  // namespace mediagen::db
