// The connections of AsyncPg (async_pg.hpp): how they are lent out, opened and cut. The exchange
// of one pipeline on a connection is in async_pg_exchange.cpp.
#include "mediagen/db/async_pg.hpp"

#include <libpq-fe.h>

#include <boost/asio/io_context.hpp>
#include <boost/asio/post.hpp>
#include <boost/asio/use_awaitable.hpp>

#include "async_pg_conn.hpp"
#include "mediagen/core/redact.hpp"

namespace asio = boost::asio;

namespace mediagen::db {

PgConn::PgConn(asio::io_context& io, PGconn* conn)
    : pg(conn), socket(io, PQsocket(conn)), timer(io), cut(std::make_shared<CutGuard>()) {
  cut->fd = PQsocket(conn);
}

PgConn::~PgConn() {
  {
    const std::lock_guard lock(cut->mutex);
    cut->closed = true;
  }
  // libpq owns the descriptor: the watcher lets go of it before PQfinish closes it.
  boost::system::error_code ignored;
  socket.cancel(ignored);
  socket.release();
  PQfinish(pg);
}

AsyncPg::State::State(asio::io_context& ctx, AsyncPgOptions opts, InfraCounters& c)
    : io(ctx), options(std::move(opts)), counters(c) {}

AsyncPg::State::~State() { connector.join(); }

void AsyncPg::State::give_back(std::unique_ptr<PgConn> conn) {
  std::shared_ptr<Waiter> waiter;
  std::unique_ptr<PgConn> closing;  // closed (PQfinish) after the lock is let go
  {
    const std::lock_guard lock(mutex);
    if (!conn) --open;  // broken: dropped, its place free for the next opener
    if (conn && closed) {
      --open;
      closing = std::move(conn);
    }
    while (!waiters.empty()) {
      auto w = std::move(waiters.front());
      waiters.pop_front();
      if (w->answered.exchange(true)) continue;  // its deadline answered it
      waiter = std::move(w);
      break;
    }
    if (!waiter) {
      if (conn) idle.push_back(std::move(conn));
      return;
    }
    if (!conn) ++open;  // the waiter opens one in the place of the broken one
  }
  waiter->timer.cancel();
  waiter->answer(Grant{std::move(conn), /*may_open=*/true});
}

std::size_t AsyncPg::open_connections() const {
  const std::lock_guard lock(state_->mutex);
  return state_->open;
}

AsyncPg::AsyncPg(asio::io_context& io, AsyncPgOptions options, InfraCounters& counters)
    : state_(std::make_shared<State>(io, std::move(options), counters)) {}

AsyncPg::~AsyncPg() {
  std::deque<std::shared_ptr<State::Waiter>> waiters;
  {
    const std::lock_guard lock(state_->mutex);
    state_->closed = true;
    state_->open -= state_->idle.size();
    state_->idle.clear();
    waiters.swap(state_->waiters);
  }
  for (auto& w : waiters) {
    if (!w->answered.exchange(true)) w->answer(State::Grant{});
  }
}

namespace {

// Opens a connection on the calling (connector) thread: blocking, bounded by connect_timeout.
// A URL libpq cannot read is Unavailable here, as for the pool (connection.cpp).
PGconn* open_blocking(const std::string& url, const ConnectLimits& limits) {
  PGconn* pg = PQconnectdb(connection_string(url, limits).c_str());
  if (!pg) throw Unavailable("out of memory opening a database connection");
  if (PQstatus(pg) != CONNECTION_OK) {
    std::string why = PQerrorMessage(pg);
    PQfinish(pg);
    throw Unavailable("database connection failed: " + redact_secrets(why, url));
  }
  if (PQsetnonblocking(pg, 1) != 0 || PQenterPipelineMode(pg) != 1) {
    std::string why = PQerrorMessage(pg);
    PQfinish(pg);
    throw Unavailable("database connection not usable in pipeline mode: " + why);
  }
  return pg;
}

}  // namespace

asio::awaitable<std::unique_ptr<PgConn>> AsyncPg::State::open_one() {
  // The connector thread holds nothing of the state (the last reference must never drop there,
  // where ~State would join that very thread) and lets go of the handler before it returns.
  auto init = [this](auto handler) {
    auto ex = asio::get_associated_executor(handler);
    auto h = std::make_shared<decltype(handler)>(std::move(handler));
    asio::post(connector, [url = options.url, limits = options.limits, h = std::move(h), ex]() mutable {
      std::exception_ptr ep;
      PGconn* pg = nullptr;
      try {
        pg = open_blocking(url, limits);
      } catch (...) {
        ep = std::current_exception();
      }
      asio::post(ex, [h = std::move(h), ep, pg] { (*h)(ep, pg); });
    });
  };
  PGconn* pg = nullptr;
  try {
    pg = co_await asio::async_initiate<const asio::use_awaitable_t<>&, void(std::exception_ptr, PGconn*)>(
        std::move(init), asio::use_awaitable);
  } catch (...) {
    give_back(nullptr);
    throw;
  }
  co_return std::make_unique<PgConn>(io, pg);
}

asio::awaitable<AsyncPg::State::Grant> AsyncPg::State::wait_for_one(Deadline deadline_at) {
  auto self = shared_from_this();
  auto init = [self, deadline_at](auto handler) {
    auto ex = asio::get_associated_executor(handler);
    auto h = std::make_shared<decltype(handler)>(std::move(handler));
    auto w = std::make_shared<Waiter>(self->io);
    w->answer = [h, ex](Grant g) {
      asio::post(ex, [h, g = std::make_shared<Grant>(std::move(g))]() mutable { (*h)(std::move(*g)); });
    };
    // Armed before it is queued: whoever takes it from the queue may cancel the timer at once.
    w->timer.expires_at(deadline_at);
    w->timer.async_wait([self, w](const boost::system::error_code& ec) {
      if (ec || w->answered.exchange(true)) return;
      {
        const std::lock_guard lock(self->mutex);
        std::erase(self->waiters, w);
      }
      w->answer(Grant{});
    });
    const std::lock_guard lock(self->mutex);
    self->waiters.push_back(std::move(w));
  };
  co_return co_await asio::async_initiate<const asio::use_awaitable_t<>&, void(Grant)>(std::move(init),
                                                                                        asio::use_awaitable);
}

asio::awaitable<AsyncPg::State::Lease> AsyncPg::State::lend(Deadline deadline_at) {
  bool may_open = false;
  {
    const std::lock_guard lock(mutex);
    if (closed) throw Unavailable("the database reader is closed");
    if (!idle.empty()) {
      auto conn = std::move(idle.back());
      idle.pop_back();
      co_return Lease(shared_from_this(), std::move(conn));
    }
    if (open < options.connections) {
      ++open;
      may_open = true;
    }
  }
  if (!may_open) {
    Grant grant = co_await wait_for_one(deadline_at);
    if (grant.conn) co_return Lease(shared_from_this(), std::move(grant.conn));
    if (!grant.may_open) {
      counters.pool_deadlines.fetch_add(1, std::memory_order_relaxed);
      throw Unavailable("no database connection free within the deadline");
    }
  }
  co_return Lease(shared_from_this(), co_await open_one());
}

asio::awaitable<std::vector<PgResult>> AsyncPg::pipeline(std::unique_ptr<std::vector<PgQuery>> queries) {
  const Deadline deadline_at = std::chrono::steady_clock::now() + state_->options.deadline;
  // The state lives as long as a request uses it, even past the AsyncPg that made it.
  const std::shared_ptr<State> state = state_;
  State::Lease lease = co_await state->lend(deadline_at);
  co_return co_await state->exchange(lease, *queries, deadline_at);
}

asio::awaitable<PgResult> AsyncPg::first(std::unique_ptr<std::vector<PgQuery>> queries) {
  auto results = co_await pipeline(std::move(queries));
  co_return std::move(results.front());
}

}  // namespace mediagen::db
