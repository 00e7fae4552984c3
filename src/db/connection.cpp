#include "mediagen/db/connection.hpp"

#include <libpq-fe.h>

#include "mediagen/core/redact.hpp"
#include "mediagen/db/pg.hpp"

namespace mediagen::db {

namespace {

// A value for a key=value connection string: quoted, with \ and ' escaped.
std::string quoted(std::string_view value) {
  std::string out = "'";
  for (char c : value) {
    if (c == '\\' || c == '\'') out += '\\';
    out += c;
  }
  return out + "'";
}

}  // namespace

bool sqlstate_means_unavailable(std::string_view state) {
  return state == "57014" || state == "55P03" || state == "25P03" || state.substr(0, 3) == "57P" ||
         state.substr(0, 2) == "08" || state == "53300";
}

std::string connection_string(const std::string& url, const ConnectLimits& limits) {
  char* error = nullptr;
  PQconninfoOption* parsed = PQconninfoParse(url.c_str(), &error);
  if (!parsed) {
    // libpq's message may quote the piece it could not read: the password, for one.
    std::string why = error ? error : "out of memory";
    PQfreemem(error);
    throw Unavailable("invalid database URL: " + redact_secrets(why, url));
  }
  std::string out;
  std::string user_options;
  bool has[5] = {};
  static constexpr const char* kOurs[5] = {"connect_timeout", "keepalives", "keepalives_idle", "keepalives_interval",
                                           "keepalives_count"};
  for (PQconninfoOption* o = parsed; o->keyword; ++o) {
    if (!o->val) continue;
    const std::string_view key = o->keyword;
    if (key == "options") {
      user_options = o->val;
      continue;
    }
    for (int i = 0; i < 5; ++i) has[i] = has[i] || key == kOurs[i];
    out += std::string(key) + "=" + quoted(o->val) + " ";
  }
  PQconninfoFree(parsed);
  const std::string ours[5] = {std::to_string(limits.connect_timeout_seconds), "1",
                               std::to_string(limits.keepalive_idle_seconds), "3", "3"};
  for (int i = 0; i < 5; ++i) {
    if (!has[i]) out += std::string(kOurs[i]) + "=" + ours[i] + " ";
  }
  std::string options = "-c statement_timeout=" + std::to_string(limits.statement_timeout_ms) +
                        " -c lock_timeout=" + std::to_string(limits.lock_timeout_ms) +
                        " -c idle_in_transaction_session_timeout=" + std::to_string(limits.idle_in_transaction_ms);
  if (!user_options.empty()) options += " " + user_options;
  return out + "options=" + quoted(options);
}

Db::Db(std::string url, InfraCounters* counters, ConnectLimits limits)
    : url_(std::move(url)), counters_(counters), limits_(limits) {}

Db::~Db() = default;

pqxx::connection_base& Db::conn() {
  if (!conn_ || !conn_->pq.is_open()) {
    prepared_.clear();
    try {
      conn_ = std::make_unique<detail::Connection>(connection_string(url_, limits_));
    } catch (const pqxx::broken_connection& e) {
      conn_.reset();
      // libpq quotes pieces of a connection string it cannot read, the password among them.
      throw Unavailable(redact_secrets(e.what(), url_));
    }
  }
  socket_fd_.store(conn_->pq.sock(), std::memory_order_release);
  return conn_->pq;
}

void Db::reset() {
  socket_fd_.store(-1, std::memory_order_release);
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

void Db::transaction_committed() {
  if (changed_users_.empty()) return;
  auto users = std::move(changed_users_);
  changed_users_.clear();
  if (!commit_listener_) return;
  // The commit stands whatever a listener does: its failure is not the transaction's.
  try {
    commit_listener_(users);
  } catch (const std::exception&) {
  }
}

void Db::count() {
  if (counters_) counters_->db_queries.fetch_add(1, std::memory_order_relaxed);
}

}  // namespace mediagen::db
