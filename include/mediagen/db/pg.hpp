#pragma once
// For stores and the migration runner only: libpqxx stays out of every other header.
#include <memory>
#include <set>
#include <stdexcept>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <pqxx/pqxx>

#include "mediagen/core/counters.hpp"
#include "mediagen/db/db.hpp"

namespace mediagen::db {

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
  Db(std::string url, InfraCounters* counters) : url_(std::move(url)), counters_(counters) {}

  pqxx::connection& conn() {
    if (!conn_ || !conn_->is_open()) {
      prepared_.clear();
      try {
        conn_ = std::make_unique<pqxx::connection>(url_);
      } catch (const pqxx::broken_connection& e) {
        conn_.reset();
        throw Unavailable(e.what());
      }
    }
    return *conn_;
  }

  // Drops the connection after a failure so the next use starts clean.
  void reset() {
    conn_.reset();
    prepared_.clear();
  }

  template <class... Args>
  pqxx::result exec(pqxx::transaction_base& tx, const Statement& st, Args&&... args) {
    if (prepared_.insert(st.name).second) conn_->prepare(st.name, st.sql);
    count();
    return tx.exec_prepared(st.name, std::forward<Args>(args)...);
  }

  pqxx::result exec_raw(pqxx::transaction_base& tx, const std::string& sql) {
    count();
    return tx.exec(sql);
  }

  void count() {
    if (counters_) counters_->db_queries.fetch_add(1, std::memory_order_relaxed);
  }

 private:
  std::string url_;
  InfraCounters* counters_;
  std::unique_ptr<pqxx::connection> conn_;
  std::set<std::string, std::less<>> prepared_;
};

// A PostgreSQL text[] literal ({"a","b"}) for a parameter cast to text[].
inline std::string text_array(const std::vector<std::string>& items) {
  std::string out = "{";
  for (std::size_t i = 0; i < items.size(); ++i) {
    if (i) out += ',';
    out += '"';
    for (char c : items[i]) {
      if (c == '"' || c == '\\') out += '\\';
      out += c;
    }
    out += '"';
  }
  return out + "}";
}

// Runs `fn(tx)` in one transaction and commits it. A broken connection becomes Unavailable.
// A deadlock or serialization failure rolls everything back, so the whole of `fn` runs again
// (a few times): `fn` must touch nothing but the database.
template <class F>
auto transact(Db& db, F&& fn) {
  constexpr int kAttempts = 5;
  for (int attempt = 1;; ++attempt) {
    try {
      pqxx::work tx(db.conn());
      if constexpr (std::is_void_v<decltype(fn(tx))>) {
        fn(tx);
        tx.commit();
        return;
      } else {
        auto result = fn(tx);
        tx.commit();
        return result;
      }
    } catch (const pqxx::broken_connection& e) {
      db.reset();
      throw Unavailable(e.what());
    } catch (const pqxx::in_doubt_error& e) {
      db.reset();
      throw Unavailable(e.what());
    } catch (const pqxx::transaction_rollback&) {
      if (attempt == kAttempts) throw;
    }
  }
}

// A single read: no BEGIN/COMMIT around it, so one round trip instead of three. Use
// transact() when several statements must see one snapshot.
template <class F>
auto read(Db& db, F&& fn) {
  try {
    pqxx::nontransaction tx(db.conn());
    return fn(tx);
  } catch (const pqxx::broken_connection& e) {
    db.reset();
    throw Unavailable(e.what());
  }
}

}  // namespace mediagen::db
