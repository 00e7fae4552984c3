// One pipeline on a lent connection (async_pg_conn.hpp): every statement (and the PREPARE of
// those the connection has not seen) sent with one Sync, then every answer read up to the Sync.
// The socket is waited on through the io_context; the deadline cuts it (shutdown), which wakes
// the wait, so no wait outlives the request's deadline.
#include <sys/socket.h>

#include <algorithm>
#include <string_view>

#include <libpq-fe.h>

#include <boost/asio/redirect_error.hpp>
#include <boost/asio/use_awaitable.hpp>

#include "async_pg_conn.hpp"

namespace asio = boost::asio;

namespace mediagen::db {

namespace {

using Wait = asio::posix::stream_descriptor::wait_type;

// What a command in the pipeline was, to pair each answer with it.
struct Sent {
  const Statement* statement;
  bool prepare;
};

// The deadline cuts the connection: its socket is shut down, so the pending wait ends at once.
void arm(PgConn& c, Deadline deadline_at) {
  std::uint64_t seq;
  {
    const std::lock_guard lock(c.cut->mutex);
    seq = ++c.cut->seq;
    c.cut->cut = false;
  }
  c.timer.expires_at(deadline_at);
  c.timer.async_wait([guard = c.cut, seq](const boost::system::error_code& ec) {
    if (ec) return;
    const std::lock_guard lock(guard->mutex);
    if (guard->closed || guard->seq != seq) return;
    guard->cut = true;
    ::shutdown(guard->fd, SHUT_RDWR);
  });
}

// Ends the deadline; true when it already cut the connection.
bool disarm(PgConn& c) {
  bool was_cut;
  {
    const std::lock_guard lock(c.cut->mutex);
    ++c.cut->seq;
    was_cut = c.cut->cut;
  }
  c.timer.cancel();
  return was_cut;
}

asio::awaitable<boost::system::error_code> ready(PgConn& c, Wait type) {
  boost::system::error_code ec;
  co_await c.socket.async_wait(type, asio::redirect_error(asio::use_awaitable, ec));
  co_return ec;
}

bool was_cut(PgConn& c) {
  const std::lock_guard lock(c.cut->mutex);
  return c.cut->cut;
}

}  // namespace

asio::awaitable<std::vector<PgResult>> AsyncPg::State::exchange(Lease& lease, const std::vector<PgQuery>& queries,
                                                                Deadline deadline_at) {
  PgConn& c = lease.conn();
  // Any way out but a whole answer leaves the connection in an unknown state: it is dropped.
  struct Drop {
    Lease& lease;
    PgConn& conn;
    bool done = false;
    ~Drop() {
      if (disarm(conn) || !done) lease.broke();
    }
  } drop{lease, c};
  const auto broken = [&](const char* what) -> Unavailable {
    if (was_cut(c)) {
      counters.pool_deadlines.fetch_add(1, std::memory_order_relaxed);
      return Unavailable("no database answer within the deadline");
    }
    const char* why = PQerrorMessage(c.pg);
    return Unavailable(std::string(what) + (why && *why ? std::string(": ") + why : std::string()));
  };

  std::vector<Sent> sent;
  sent.reserve(queries.size() * 2);
  std::vector<const char*> values;
  std::vector<std::string_view> preparing;  // a statement twice in one pipeline is prepared once
  for (const PgQuery& q : queries) {
    const Statement& st = *q.statement;
    if (!c.prepared.contains(st.name) && std::find(preparing.begin(), preparing.end(), st.name) == preparing.end()) {
      if (PQsendPrepare(c.pg, st.name, st.sql, 0, nullptr) != 1) throw broken("sending a statement failed");
      sent.push_back({&st, true});
      preparing.emplace_back(st.name);
    }
    values.clear();
    for (const auto& v : q.params.values()) values.push_back(v ? v->c_str() : nullptr);
    if (PQsendQueryPrepared(c.pg, st.name, static_cast<int>(values.size()), values.data(), nullptr, nullptr, 0) != 1) {
      throw broken("sending a statement failed");
    }
    sent.push_back({&st, false});
  }
  if (PQpipelineSync(c.pg) != 1) throw broken("sending a statement failed");
  counters.db_queries.fetch_add(queries.size(), std::memory_order_relaxed);

  arm(c, deadline_at);
  // The pipeline is small (a few statements): it fits the socket's buffer, so a flush waits only
  // for room, never for the server to drain its answers first.
  for (int r; (r = PQflush(c.pg)) != 0;) {
    if (r < 0) throw broken("sending to the database failed");
    if (co_await ready(c, Wait::wait_write)) throw broken("waiting for the database failed");
  }

  std::vector<PgResult> out;
  out.reserve(queries.size());
  std::optional<PgError> refused;
  bool unavailable = false;
  std::size_t next = 0;
  int nulls = 0;
  for (;;) {
    while (PQisBusy(c.pg)) {
      if (co_await ready(c, Wait::wait_read)) throw broken("waiting for the database failed");
      if (PQconsumeInput(c.pg) != 1) throw broken("the database connection was lost");
    }
    PGresult* raw = PQgetResult(c.pg);
    if (!raw) {
      // One NULL ends each command's answer; two in a row mean the connection went wrong.
      if (++nulls > 1 || PQstatus(c.pg) != CONNECTION_OK) throw broken("the database connection was lost");
      continue;
    }
    nulls = 0;
    PgResult result(raw);
    const ExecStatusType status = PQresultStatus(raw);
    if (status == PGRES_PIPELINE_SYNC) break;
    if (next >= sent.size()) throw broken("more answers than statements");
    const Sent& s = sent[next++];
    if (status == PGRES_TUPLES_OK || status == PGRES_COMMAND_OK) {
      if (s.prepare) {
        c.prepared.insert(s.statement->name);
      } else {
        out.push_back(std::move(result));
      }
    } else if (status == PGRES_FATAL_ERROR && !refused) {
      const char* state = PQresultErrorField(raw, PG_DIAG_SQLSTATE);
      const char* message = PQresultErrorMessage(raw);
      refused.emplace(state ? state : "", std::string(s.statement->name) + ": " + (message ? message : ""));
      unavailable = sqlstate_means_unavailable(refused->sqlstate());
    }
    // PGRES_PIPELINE_ABORTED: a statement after the one that failed; the failure is reported.
  }
  drop.done = !unavailable;
  if (refused) {
    if (unavailable) throw Unavailable(refused->what());
    throw *refused;
  }
  if (out.size() != queries.size()) throw broken("fewer answers than statements");
  co_return out;
}

}  // namespace mediagen::db
