#pragma once
// PostgreSQL from the I/O threads, for requests that only read: libpq's non-blocking API with
// each connection's socket watched by the io_context (as userver's driver and Boost.MySQL do), so
// a read costs no thread hop to the blocking pool and back. Every connection is in pipeline mode:
// a statement is prepared on its first use on a connection in the same round trip that runs it,
// and several statements go out together (pipeline()).
//
// Connections are opened on a thread of their own (libpq resolves host names with a blocking
// call) and kept; a broken one is dropped and the next request opens another. Every wait has the
// request's deadline: past it the connection is cut and the caller gets Unavailable (a 503), like
// a job of the blocking pool. Transactions that lock money stay on the blocking pool (db.hpp).
#include <chrono>
#include <cstdint>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include <boost/asio/awaitable.hpp>

#include "mediagen/core/counters.hpp"
#include "mediagen/db/connection.hpp"
#include "mediagen/db/pg_result.hpp"

namespace boost::asio {
class io_context;
}

namespace mediagen::db {

// A statement PostgreSQL refused (not a lost connection): a bug in the statement or a broken
// constraint, answered as a 500 by the request boundary.
class PgError : public std::runtime_error {
 public:
  PgError(std::string sqlstate, const std::string& message)
      : std::runtime_error(message), sqlstate_(std::move(sqlstate)) {}
  const std::string& sqlstate() const { return sqlstate_; }

 private:
  std::string sqlstate_;
};

// The parameters of one statement, sent as text (nullopt: NULL).
class PgParams {
 public:
  void add(std::nullopt_t) { values_.emplace_back(); }
  void add(std::string_view v) { values_.emplace_back(std::string(v)); }
  void add(const std::string& v) { values_.emplace_back(v); }
  void add(const char* v) { values_.emplace_back(std::string(v)); }
  void add(std::int64_t v) { values_.emplace_back(std::to_string(v)); }
  void add(int v) { values_.emplace_back(std::to_string(v)); }
  void add(bool v) { values_.emplace_back(v ? "true" : "false"); }
  template <class T>
  void add(const std::optional<T>& v) {
    if (v) {
      add(*v);
    } else {
      add(std::nullopt);
    }
  }
  const std::vector<std::optional<std::string>>& values() const { return values_; }

 private:
  std::vector<std::optional<std::string>> values_;
};

struct PgQuery {
  const Statement* statement;
  PgParams params;
};

template <class... Args>
PgQuery pg_query(const Statement& st, const Args&... args) {
  PgQuery q{&st, {}};
  (q.params.add(args), ...);
  return q;
}

struct AsyncPgOptions {
  std::string url;  // the database URL (made a connection string with the limits when used)
  ConnectLimits limits;
  std::size_t connections = 4;
  // A request's wait for its answer, the wait for a free connection included.
  std::chrono::milliseconds deadline{8000};
};

class AsyncPg {
 public:
  AsyncPg(boost::asio::io_context& io, AsyncPgOptions options, InfraCounters& counters);
  ~AsyncPg();
  AsyncPg(const AsyncPg&) = delete;
  AsyncPg& operator=(const AsyncPg&) = delete;

  // One statement, one round trip. Throws Unavailable (connection lost, deadline, PostgreSQL
  // stalled or shutting down) or PgError.
  template <class... Args>
  boost::asio::awaitable<PgResult> query(const Statement& st, const Args&... args) {
    auto queries = std::make_unique<std::vector<PgQuery>>();
    queries->push_back(pg_query(st, args...));
    return first(std::move(queries));
  }

  // Several statements in one round trip, run as one implicit transaction (all or none when one
  // fails); their results in order.
  boost::asio::awaitable<std::vector<PgResult>> pipeline(std::unique_ptr<std::vector<PgQuery>> queries);

  // Connections open (idle or in use), for the metrics and tests.
  std::size_t open_connections() const;

  struct State;

 private:
  boost::asio::awaitable<PgResult> first(std::unique_ptr<std::vector<PgQuery>> queries);

  std::shared_ptr<State> state_;
};

}  // namespace mediagen::db
