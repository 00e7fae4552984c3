#pragma once
// The PostgreSQL connection of one thread (libpqxx connections are not thread-safe), opened on
// first use and after a failure. Owners (pools, workers, the event publisher) see only this
// header; the statements it runs are in stores, which include pg.hpp for exec().
#include <memory>
#include <set>
#include <stdexcept>
#include <string>

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

class Db {
 public:
  Db(std::string url, InfraCounters* counters);
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

 private:
  std::string url_;
  InfraCounters* counters_;
  std::unique_ptr<detail::Connection> conn_;
  std::set<std::string, std::less<>> prepared_;
};

}  // namespace mediagen::db
