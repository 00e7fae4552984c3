#include "mediagen/http/server.hpp"

#include <boost/asio/as_tuple.hpp>
#include <boost/asio/co_spawn.hpp>
#include <boost/asio/detached.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/strand.hpp>
#include <boost/asio/use_awaitable.hpp>
#include <boost/asio/write.hpp>
#include <boost/beast/core/flat_buffer.hpp>
#include <boost/beast/core/tcp_stream.hpp>
#include <boost/beast/http/error.hpp>
#include <boost/beast/http/read.hpp>
#include <boost/beast/http/parser.hpp>
#include <boost/beast/http/string_body.hpp>
#include <boost/beast/http/write.hpp>
#include <mutex>
#include <unordered_set>

#include "mediagen/core/log.hpp"

namespace mediagen::http {

namespace asio = boost::asio;
namespace beast = boost::beast;
namespace bhttp = boost::beast::http;
using tcp = asio::ip::tcp;
constexpr auto use_tuple = asio::as_tuple(asio::use_awaitable);

namespace {

Method to_method(bhttp::verb v) {
  switch (v) {
    case bhttp::verb::get: return Method::get;
    case bhttp::verb::head: return Method::head;
    case bhttp::verb::post: return Method::post;
    case bhttp::verb::put: return Method::put;
    case bhttp::verb::patch: return Method::patch;
    case bhttp::verb::delete_: return Method::del;
    case bhttp::verb::options: return Method::options;
    default: return Method::other;
  }
}

using Parser = bhttp::request_parser<bhttp::string_body>;

class BeastRequest final : public RequestView {
 public:
  explicit BeastRequest(Parser& parser) : parser_(parser) {}
  Method method() const override { return to_method(parser_.get().method()); }
  std::string_view method_text() const override { return parser_.get().method_string(); }
  std::string_view target() const override { return parser_.get().target(); }
  std::optional<std::string_view> header(std::string_view name) const override {
    auto it = parser_.get().find(name);
    if (it == parser_.get().end()) return std::nullopt;
    return it->value();
  }
  std::string_view body() const override { return parser_.get().body(); }

 private:
  Parser& parser_;
};

}  // namespace

// State shared by the acceptor and sessions; sessions hold it by shared_ptr.
struct Server::Impl : std::enable_shared_from_this<Server::Impl> {
  struct SessionState {
    asio::strand<asio::io_context::executor_type> strand;
    beast::tcp_stream* stream = nullptr;  // null once the session ended; touched on the strand only
    bool busy = false;
  };

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
};

namespace {

class SessionExchange final : public Exchange {
 public:
  SessionExchange(beast::tcp_stream& stream, beast::flat_buffer& buffer, Parser& parser, std::string_view ip,
                  std::int64_t read_timeout)
      : stream_(stream), buffer_(buffer), parser_(parser), view_(parser), ip_(ip), read_timeout_(read_timeout) {}

  const RequestView& request() const override { return view_; }
  std::string_view peer_ip() const override { return ip_; }
  std::optional<std::uint64_t> content_length() const override {
    if (auto n = parser_.content_length()) return *n;
    return std::nullopt;
  }
  bool has_body() const override { return !parser_.is_done(); }

  asio::awaitable<BodyStatus> read_body(std::size_t limit) override {
    if (parser_.is_done()) co_return BodyStatus::ok;
    if (auto n = parser_.content_length(); n && *n > limit) co_return BodyStatus::too_large;
    parser_.body_limit(limit);
    auto expect = parser_.get().find(bhttp::field::expect);
    if (expect != parser_.get().end() && beast::iequals(expect->value(), "100-continue")) {
      static constexpr std::string_view kContinue = "HTTP/1.1 100 Continue\r\n\r\n";
      stream_.expires_after(std::chrono::seconds(read_timeout_));
      auto [ec, n] = co_await asio::async_write(stream_, asio::buffer(kContinue), use_tuple);
      if (ec) co_return BodyStatus::failed;
    }
    stream_.expires_after(std::chrono::seconds(read_timeout_));
    auto [ec, n] = co_await bhttp::async_read(stream_, buffer_, parser_, use_tuple);
    if (ec == bhttp::error::body_limit) co_return BodyStatus::too_large;
    if (ec) co_return BodyStatus::failed;
    co_return BodyStatus::ok;
  }

 private:
  beast::tcp_stream& stream_;
  beast::flat_buffer& buffer_;
  Parser& parser_;
  BeastRequest view_;
  std::string_view ip_;
  std::int64_t read_timeout_;
};

bhttp::response<bhttp::string_body> to_beast(Response&& r, unsigned version, bool keep_alive, bool head) {
  bhttp::response<bhttp::string_body> res{static_cast<bhttp::status>(r.status), version};
  res.set(bhttp::field::content_type, r.content_type);
  for (auto& [k, v] : r.headers) res.insert(k, v);
  res.keep_alive(keep_alive);
  const std::size_t size = r.body.size();
  if (!head) res.body() = std::move(r.body);
  res.content_length(size);
  return res;
}

}  // namespace

asio::awaitable<void> Server::Impl::session(tcp::socket socket, std::shared_ptr<SessionState> state) {
  auto self = shared_from_this();
  beast::error_code ip_ec;
  const std::string ip = socket.remote_endpoint(ip_ec).address().to_string();
  socket.set_option(tcp::no_delay(true), ip_ec);
  beast::tcp_stream stream(std::move(socket));
  state->stream = &stream;
  beast::flat_buffer buffer;
  metrics.connections_open.fetch_add(1, std::memory_order_relaxed);

  for (;;) {
    if (stopping) break;
    if (buffer.size() == 0) {
      // Keep-alive wait for the next request's first byte.
      stream.expires_after(std::chrono::seconds(options.idle_timeout_seconds));
      auto [ec, n] = co_await stream.async_read_some(buffer.prepare(8192), use_tuple);
      if (ec) break;
      buffer.commit(n);
    }
    state->busy = true;
    busy_count.fetch_add(1, std::memory_order_relaxed);
    Parser parser;
    parser.header_limit(static_cast<std::uint32_t>(options.header_limit_bytes));
    parser.body_limit(0);  // the pipeline raises it per route
    stream.expires_after(std::chrono::seconds(options.read_timeout_seconds));
    auto [ec, n] = co_await bhttp::async_read_header(stream, buffer, parser, use_tuple);

    Response response;
    bool keep_alive = false;
    bool head = false;
    unsigned version = 11;
    if (ec) {
      if (ec == bhttp::error::header_limit) {
        response = handler.refuse(431);
      } else if (ec.category() == bhttp::make_error_code(bhttp::error::bad_method).category() &&
                 ec != bhttp::error::end_of_stream && ec != bhttp::error::partial_message) {
        response = handler.refuse(400);
      } else {
        busy_count.fetch_sub(1, std::memory_order_relaxed);
        break;  // timeout, reset or a close mid-header: nothing to answer
      }
    } else {
      version = parser.get().version();
      head = parser.get().method() == bhttp::verb::head;
      SessionExchange exchange(stream, buffer, parser, ip, options.read_timeout_seconds);
      response = co_await handler.handle(exchange);
      // A body left unread would be taken for the next request: close instead.
      keep_alive = parser.keep_alive() && !response.close && parser.is_done() && !stopping;
    }
    auto res = to_beast(std::move(response), version, keep_alive, head);
    stream.expires_after(std::chrono::seconds(options.read_timeout_seconds));
    auto [wec, wn] = co_await bhttp::async_write(stream, res, use_tuple);
    busy_count.fetch_sub(1, std::memory_order_relaxed);
    state->busy = false;
    if (wec || !keep_alive) break;
  }
  beast::error_code ignored;
  stream.socket().shutdown(tcp::socket::shutdown_send, ignored);
  state->stream = nullptr;
  metrics.connections_open.fetch_sub(1, std::memory_order_relaxed);
  std::lock_guard lock(sessions_mutex);
  sessions.erase(state);
}

asio::awaitable<void> Server::Impl::accept_loop() {
  auto self = shared_from_this();
  for (;;) {
    auto strand = asio::make_strand(ioc);
    auto [ec, socket] = co_await acceptor.async_accept(strand, use_tuple);
    if (ec) {
      if (stopping || !acceptor.is_open()) co_return;
      // Out of descriptors or similar: back off briefly rather than spin.
      log::warn("accept failed", {{"error", ec.message()}});
      asio::steady_timer t(ioc, std::chrono::milliseconds(50));
      co_await t.async_wait(use_tuple);
      continue;
    }
    auto state = std::make_shared<SessionState>(SessionState{strand});
    {
      std::lock_guard lock(sessions_mutex);
      if (sessions.size() >= options.max_connections) {
        metrics.connections_refused.fetch_add(1, std::memory_order_relaxed);
        beast::error_code ignored;
        socket.close(ignored);
        continue;
      }
      sessions.insert(state);
    }
    asio::co_spawn(strand, session(std::move(socket), state), asio::detached);
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
  asio::co_spawn(impl_->ioc, impl_->accept_loop(), asio::detached);
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
  std::vector<std::shared_ptr<Impl::SessionState>> snapshot;
  {
    std::lock_guard lock(impl->sessions_mutex);
    snapshot.assign(impl->sessions.begin(), impl->sessions.end());
  }
  for (auto& s : snapshot) {
    asio::post(s->strand, [s] {
      if (s->stream && !s->busy) s->stream->cancel();
    });
  }
}

std::size_t Server::connections() const {
  std::lock_guard lock(impl_->sessions_mutex);
  return impl_->sessions.size();
}

std::size_t Server::busy() const { return impl_->busy_count.load(); }

}  // namespace mediagen::http
