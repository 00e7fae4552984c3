#include "mediagen/db/connection.hpp"

#include "mediagen/core/redact.hpp"
#include "mediagen/db/pg.hpp"

namespace mediagen::db {

Db::Db(std::string url, InfraCounters* counters) : url_(std::move(url)), counters_(counters) {}

Db::~Db() = default;

pqxx::connection_base& Db::conn() {
  if (!conn_ || !conn_->pq.is_open()) {
    prepared_.clear();
    try {
      conn_ = std::make_unique<detail::Connection>(url_);
    } catch (const pqxx::broken_connection& e) {
      conn_.reset();
      // libpq quotes pieces of a connection string it cannot read, the password among them.
      throw Unavailable(redact_secrets(e.what(), url_));
    }
  }
  return conn_->pq;
}

void Db::reset() {
  conn_.reset();
  prepared_.clear();
}

pqxx::result Db::exec_raw(Tx& tx, const std::string& sql) {
  count();
  return tx.exec(sql);
}

void Db::ping() {
  run_read(*this, [this](Tx& tx) { exec_raw(tx, "SELECT 1"); });
}

void Db::count() {
  if (counters_) counters_->db_queries.fetch_add(1, std::memory_order_relaxed);
}

}  // namespace mediagen::db
