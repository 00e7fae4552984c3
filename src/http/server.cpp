#include "mediagen/http/server.hpp"

#include <algorithm>
#include <limits>
#include <boost/asio/as_tuple.hpp>
#include <boost/asio/co_spawn.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/strand.hpp>
#include <boost/asio/use_awaitable.hpp>
#include <boost/beast/core/flat_buffer.hpp>
#include <boost/beast/core/tcp_stream.hpp>
#include <boost/beast/http/error.hpp>
#include <boost/beast/http/parser.hpp>
#include <boost/beast/websocket/rfc6455.hpp>
#include <mutex>
#include <unordered_set>

#include "mediagen/core/ascii.hpp"
#include "mediagen/core/contain.hpp"
#include "mediagen/core/log.hpp"
#include "mediagen/http/upgrade.hpp"
#include "session_exchange.hpp"
#include "session_io.hpp"
#include "wire.hpp"

namespace mediagen::http {

namespace asio = boost::asio;
namespace beast = boost::beast;
namespace bhttp = boost::beast::http;
using tcp = asio::ip::tcp;
constexpr auto use_tuple = asio::as_tuple(asio::use_awaitable);

using SessionClock = session_io::Clock;
using session_io::Connection;
using session_io::SessionExchange;
using session_io::SessionState;
using std::chrono::seconds;
using wire::Parser;

struct Server::Impl : std::enable_shared_from_this<Server::Impl> {

  asio::io_context& ioc;
  ServerOptions options;
  ExchangeHandler& handler;
  Metrics& metrics;
  tcp::acceptor acceptor;
  std::atomic<bool> stopping{false};
  std::atomic<std::size_t> busy_count{0};
  mutable std::mutex sessions_mutex;
  std::unordered_set<std::shared_ptr<SessionState>> sessions;

  Impl(asio::io_context& io, ServerOptions opts, ExchangeHandler& h, Metrics& m)
      : ioc(io), options(std::move(opts)), handler(h), metrics(m), acceptor(io) {}

  asio::awaitable<void> accept_loop();
  asio::awaitable<void> session(tcp::socket socket, std::shared_ptr<SessionState> state);
  void start_session(tcp::socket socket, const asio::any_io_executor& ex);
  asio::awaitable<bool> serve_requests(Connection& conn, const std::string& ip);
  void end_request(SessionState& state);
};


// The connection's boundary: whatever fails while serving it ends this connection alone, and its
// bookkeeping (the session table, the open and busy counts) is always undone.
asio::awaitable<void> Server::Impl::session(tcp::socket socket, std::shared_ptr<SessionState> state) {
  auto self = shared_from_this();
  beast::error_code ignored;
  const std::string ip = socket.remote_endpoint(ignored).address().to_string();
  socket.set_option(tcp::no_delay(true), ignored);
  // Lets a write that fits the socket's buffer leave at once without a wait (session_write.cpp).
  socket.non_blocking(true, ignored);
  beast::tcp_stream stream(std::move(socket));
  Connection conn(stream, state);
  state->stream = &stream;
  metrics.connections_open.fetch_add(1, std::memory_order_relaxed);
  bool handed_off = false;
  try {
    handed_off = co_await serve_requests(conn, ip);
  } catch (...) {
    report_contained(&metrics.infra(), Boundary::connection, std::current_exception(),
                     {{"peer", std::string_view(ip)}});
  }
  if (state->busy) end_request(*state);
  if (!handed_off) {
    stream.socket().shutdown(tcp::socket::shutdown_send, ignored);
    if (state->body_unread && !stopping) co_await conn.linger();
    stream.close();
  }
  state->stream = nullptr;
  state->read_timer.cancel();  // its wait holds the state
  metrics.connections_open.fetch_sub(1, std::memory_order_relaxed);
  std::lock_guard lock(sessions_mutex);
  sessions.erase(state);
}

void Server::Impl::end_request(SessionState& state) {
  state.busy = false;
  busy_count.fetch_sub(1, std::memory_order_relaxed);
}

// Requests one after another on a kept-alive connection; true when the socket left for the
// upgrade handler.
asio::awaitable<bool> Server::Impl::serve_requests(Connection& conn, const std::string& ip) {
  SessionState* state = &conn.state();
  beast::flat_buffer buffer;
  const session_io::WriteLimits limits{seconds(options.read_timeout_seconds), seconds(options.stream_slack_seconds),
                                       static_cast<std::uint64_t>(std::max<std::int64_t>(options.stream_min_bytes_per_second, 1))};
  for (;;) {
    if (stopping) break;
    // Keep-alive wait for the next request's first byte.
    if (buffer.size() == 0 && co_await conn.read_some(buffer, SessionClock::now() + seconds(options.idle_timeout_seconds))) break;
    state->busy = true;
    busy_count.fetch_add(1, std::memory_order_relaxed);
    // The whole request, header and body, must arrive within the read timeout.
    const auto deadline = SessionClock::now() + seconds(options.read_timeout_seconds);
    Parser parser;
    parser.header_limit(static_cast<std::uint32_t>(options.header_limit_bytes));
    // The declared size is checked against the route's cap by the pipeline, which also sets the
    // parser's limit before reading a body; here the header alone is parsed.
    parser.body_limit(std::numeric_limits<std::uint64_t>::max());
    beast::error_code ec = co_await conn.read_head(buffer, parser, deadline, options.header_limit_bytes);

    Response response;
    bool keep_alive = false;
    bool head = false;
    unsigned version = 11;
    if (parser.is_header_done() && !ec && !wire::framing_ok(parser)) ec = bhttp::error::bad_transfer_encoding;
    if (!parser.is_header_done() || ec) {
      if (ec == bhttp::error::header_limit) {
        response = handler.refuse(431);
      } else if (ec.category() == bhttp::make_error_code(bhttp::error::bad_method).category()) {
        // Malformed, folded or smuggling-shaped: answered 400, and the connection is closed.
        response = handler.refuse(400);
      } else {
        end_request(*state);
        break;  // timeout, reset or a close mid-header: nothing to answer
      }
    } else if (options.upgrade && beast::websocket::is_upgrade(parser.get()) &&
               options.upgrade->wants(parser.get().target())) {
      // The connection leaves HTTP: it no longer counts here and shutdown no longer waits for it.
      end_request(*state);
      state->stream = nullptr;
      options.upgrade->take(conn.stream().release_socket(), parser.release(), ip);
      co_return true;
    } else {
      version = parser.get().version();
      head = parser.get().method() == bhttp::verb::head;
      const session_io::UploadPacing pacing{seconds(options.read_timeout_seconds), seconds(options.stream_slack_seconds),
                                            limits.min_bytes_per_second};
      SessionExchange exchange(conn, buffer, parser, ip, deadline, pacing);
      response = co_await handler.handle(exchange);
      // A body left unread would be taken for the next request: close instead.
      keep_alive = parser.keep_alive() && !response.close && parser.is_done() && !stopping;
      state->body_unread = !parser.is_done();
    }
    const bool written = co_await session_io::write_response(conn, response, version, keep_alive, head, limits);
    end_request(*state);
    if (!written || !keep_alive) break;
  }
  co_return false;
}

void Server::Impl::start_session(tcp::socket socket, const asio::any_io_executor& ex) {
  auto state = std::make_shared<SessionState>(ex);
  {
    std::lock_guard lock(sessions_mutex);
    if (sessions.size() >= options.max_connections) {
      metrics.connections_refused.fetch_add(1, std::memory_order_relaxed);
      beast::error_code ignored;
      socket.close(ignored);
      return;
    }
    sessions.insert(state);
  }
  asio::co_spawn(ex, session(std::move(socket), state), contained(&metrics.infra(), Boundary::connection));
}

asio::awaitable<void> Server::Impl::accept_loop() {
  auto self = shared_from_this();
  for (;;) {
    asio::any_io_executor ex = options.single_threaded ? asio::any_io_executor(ioc.get_executor())
                                                       : asio::any_io_executor(asio::make_strand(ioc));
    auto [ec, socket] = co_await acceptor.async_accept(ex, use_tuple);
    if (ec) {
      if (stopping || !acceptor.is_open()) co_return;
      // Out of descriptors or similar: back off briefly rather than spin.
      log::warn("accept failed", {{"error", ec.message()}});
      asio::steady_timer t(ioc, std::chrono::milliseconds(50));
      co_await t.async_wait(use_tuple);
      continue;
    }
    try {
      start_session(std::move(socket), ex);
    } catch (...) {
      // Out of memory for one more session, say: that connection is dropped, accepting goes on.
      report_contained(&metrics.infra(), Boundary::connection, std::current_exception());
    }
  }
}

Server::Server(asio::io_context& ioc, ServerOptions options, ExchangeHandler& handler, Metrics& metrics)
    : impl_(std::make_shared<Impl>(ioc, std::move(options), handler, metrics)) {}

Server::~Server() = default;

void Server::start() {
  auto& a = impl_->acceptor;
  tcp::endpoint ep(asio::ip::make_address(impl_->options.listen.host), impl_->options.listen.port);
  a.open(ep.protocol());
  a.set_option(asio::socket_base::reuse_address(true));
  a.bind(ep);
  a.listen(asio::socket_base::max_listen_connections);
  asio::co_spawn(impl_->ioc, impl_->accept_loop(), contained(&impl_->metrics.infra(), Boundary::io_thread));
}

Endpoint Server::bound() const {
  auto ep = impl_->acceptor.local_endpoint();
  return Endpoint{ep.address().to_string(), ep.port()};
}

void Server::shutdown() {
  auto impl = impl_;
  impl->stopping = true;
  asio::post(impl->ioc, [impl] {
    beast::error_code ignored;
    impl->acceptor.close(ignored);
  });
  std::vector<std::shared_ptr<SessionState>> snapshot;
  {
    std::lock_guard lock(impl->sessions_mutex);
    snapshot.assign(impl->sessions.begin(), impl->sessions.end());
  }
  for (auto& s : snapshot) {
    asio::post(s->executor, [s] {
      beast::error_code ignored;
      if (s->stream && !s->busy) s->stream->socket().cancel(ignored);
    });
  }
}

std::size_t Server::connections() const {
  std::lock_guard lock(impl_->sessions_mutex);
  return impl_->sessions.size();
}

std::size_t Server::busy() const { return impl_->busy_count.load(); }

}  // namespace mediagen::http
