#include "pusher_session.hpp"

#include <algorithm>
#include <chrono>

#include <boost/asio/dispatch.hpp>
#include <boost/asio/post.hpp>
#include <boost/beast/core/buffers_to_string.hpp>
#include <boost/beast/websocket/error.hpp>
#include <boost/beast/websocket/rfc6455.hpp>
#include <boost/beast/websocket/stream_base.hpp>

#include "mediagen/core/contain.hpp"
#include "mediagen/core/log.hpp"
#include "mediagen/core/utf8.hpp"
#include "mediagen/db/blocking_pool.hpp"
#include "mediagen/realtime/channel_signer.hpp"
#include "pusher_frames.hpp"

namespace mediagen::realtime {

namespace asio = boost::asio;
namespace beast = boost::beast;
namespace websocket = boost::beast::websocket;

namespace {

// Frames per system call: 2 buffers each, well within IOV_MAX (1024).
constexpr std::size_t kMaxFramesPerWrite = 128;

std::string_view query_param(std::string_view query, std::string_view name) {
  while (!query.empty()) {
    auto amp = query.find('&');
    auto pair = query.substr(0, amp);
    auto eq = pair.find('=');
    if (pair.substr(0, eq) == name) return eq == std::string_view::npos ? std::string_view{} : pair.substr(eq + 1);
    if (amp == std::string_view::npos) break;
    query.remove_prefix(amp + 1);
  }
  return {};
}

// Checks the target "/app/{key}?protocol=7&...": a refusal code and its message, or 0.
std::pair<int, std::string> check_target(std::string_view target, std::string_view app_key) {
  auto q = target.find('?');
  std::string_view path = target.substr(0, q);
  std::string_view query = q == std::string_view::npos ? std::string_view{} : target.substr(q + 1);
  constexpr std::string_view kApp = "/app/";
  if (path.substr(0, kApp.size()) != kApp || path.substr(kApp.size()) != app_key) {
    return {error_code::app_not_found, "Application does not exist"};
  }
  // pusher-js sends protocol=7; versions 5 to 7 share the frames used here.
  std::string_view protocol = query_param(query, "protocol");
  if (!protocol.empty() && protocol != "5" && protocol != "6" && protocol != "7") {
    return {error_code::unsupported_protocol, "Unsupported protocol version"};
  }
  return {0, {}};
}

}  // namespace

void PusherSession::fail(const std::exception_ptr& error) noexcept {
  report_contained(&hub_->pool.counters(), Boundary::socket, error,
                   {{"socket_id", std::string_view(hub_->socket_id(serial_))}});
  try {
    if (finished_ || close_sent_ || !open_) {
      finish();
      return;
    }
    // Only the close is said now: what was queued may be what failed. A write in flight keeps
    // its frames until it completes.
    queue_.resize(writing_ ? in_flight_ : 0);
    close_after_ = std::make_pair(static_cast<int>(websocket::close_code::internal_error),
                                  std::string("Internal server error"));
    if (!writing_) do_write();
  } catch (...) {
    finish();
  }
}

PusherSession::PusherSession(std::shared_ptr<HubCore> hub, asio::ip::tcp::socket socket, std::uint64_t serial)
    : hub_(std::move(hub)), ws_(std::move(socket)), serial_(serial) {}

PusherSession::~PusherSession() = default;

void PusherSession::start(Request request, std::optional<std::string> refusal_reason,
                          std::unique_ptr<AddressSlots::Slot> slot) {
  address_slot_ = std::move(slot);
  websocket::stream_base::timeout timeouts{};
  // The handshake and the closing handshake must finish in time; idleness is the Pusher
  // protocol's business (activity_timeout, pusher:ping), checked by the hub's sweeper.
  timeouts.handshake_timeout = std::chrono::seconds(10);
  timeouts.idle_timeout = websocket::stream_base::none();
  timeouts.keep_alive_pings = false;
  ws_.set_option(timeouts);
  // A frame over the cap fails the read, and Beast closes with 1009 (message too big).
  ws_.read_message_max(hub_->options.max_message_bytes);
  ws_.auto_fragment(false);
  ws_.set_option(websocket::stream_base::decorator([](websocket::response_type& res) {
    res.set(beast::http::field::server, "mediagen");
  }));

  auto [refusal, message] = check_target(request.target(), hub_->app_key);
  if (refusal == 0 && hub_->stopping.load()) {
    refusal = error_code::reconnect;
    message = "Server is shutting down";
  }
  if (refusal == 0 && refusal_reason) {
    refusal = error_code::over_capacity;
    message = std::move(*refusal_reason);
  }
  request_ = std::make_unique<Request>(std::move(request));
  ws_.async_accept(*request_, [self = shared_from_this(), refusal = refusal,
                               message = std::move(message)](beast::error_code ec) mutable {
    self->request_.reset();
    if (ec) {
      self->finish();
      return;
    }
    self->contained([&] { self->on_accept(refusal, std::move(message)); });
  });
}

void PusherSession::on_accept(int refusal, std::string refusal_message) {
  if (refusal != 0) {
    close_with(refusal, std::move(refusal_message));
    return;
  }
  if (!hub_->add_session(serial_, shared_from_this())) {
    close_with(error_code::over_capacity, "Over connection capacity");
    return;
  }
  open_ = true;
  last_seen_ms.store(steady_ms(), std::memory_order_relaxed);
  send(connection_established_frame(hub_->socket_id(serial_), hub_->options.activity_timeout.count()));
  do_read();
}

void PusherSession::do_read() {
  ws_.async_read(buffer_, [self = shared_from_this()](beast::error_code ec, std::size_t) {
    if (ec) {
      // Closed by the peer, reset, a protocol violation or a frame over the cap (Beast has sent
      // its close frame then): nothing more to say.
      self->finish();
      return;
    }
    self->contained([&] { self->on_message(); });
    if (!self->finished_) self->do_read();
  });
}

void PusherSession::on_message() {
  last_seen_ms.store(steady_ms(), std::memory_order_relaxed);
  ping_sent_ms.store(0, std::memory_order_relaxed);
  if (close_after_) {
    buffer_.consume(buffer_.size());
    return;
  }
  if (!ws_.got_text()) {
    buffer_.consume(buffer_.size());
    send(error_frame(error_code::reconnect, "Binary frames are not part of the protocol"));
    return;
  }
  const std::string text = beast::buffers_to_string(buffer_.data());
  buffer_.consume(buffer_.size());
  // Clients speak rarely: an idle socket keeps no read buffer (memory per socket is what bounds
  // how many an instance holds).
  buffer_.shrink_to_fit();
  auto parsed = parse_client_message(text);
  if (!parsed.message) {
    send(error_frame(error_code::reconnect, parsed.error == ClientMessageError::bad_data
                                                 ? "Invalid data for this event"
                                                 : "Invalid message format"));
    return;
  }
  handle(*parsed.message);
}

void PusherSession::handle(const ClientMessage& m) {
  if (m.event == "pusher:ping") {
    send(pong_frame());
  } else if (m.event == "pusher:pong") {
    // last_seen is already updated
  } else if (m.event == "pusher:subscribe") {
    subscribe(m);
  } else if (m.event == "pusher:unsubscribe") {
    unsubscribe(m.channel);
  } else if (m.event.rfind("client-", 0) == 0) {
    send(error_frame(error_code::client_event_rejected, "Client events are not enabled on this server"));
  } else {
    send(error_frame(error_code::reconnect, "Unknown event"));
  }
}

void PusherSession::check(std::int64_t now_ms, std::int64_t now_wall_ms) {
  contained([&] {
    if (finished_ || close_after_ || !open_) return;
    if (expires_wall_ms.load(std::memory_order_relaxed) <= now_wall_ms) {
      close_with(error_code::unauthorized, "The key that authorized a subscription has expired");
      return;
    }
    const auto pinged = ping_sent_ms.load(std::memory_order_relaxed);
    if (pinged != 0) {
      if (now_ms - pinged >= hub_->options.pong_timeout.count() * 1000) {
        close_with(error_code::pong_not_received, "Pong reply not received");
      }
      return;
    }
    if (now_ms - last_seen_ms.load(std::memory_order_relaxed) >= hub_->options.activity_timeout.count() * 1000) {
      ping_sent_ms.store(now_ms, std::memory_order_relaxed);
      send(ping_frame());
    }
  });
}

void PusherSession::close_with(int code, std::string message) {
  contained([&] {
    if (finished_ || close_after_) return;
    send(error_frame(code, message));
    close_after_ = std::make_pair(code, std::move(message));
    if (!writing_) do_write();
  });
}

void PusherSession::send(Frame frame) {
  if (finished_) return;
  if (queue_.size() >= hub_->options.max_queued_frames) {
    // A consumer this far behind would only grow the queue: drop it, it reconnects later.
    beast::error_code ignored;
    beast::get_lowest_layer(ws_).close(ignored);
    finish();
    return;
  }
  hub_->delivered.fetch_add(1, std::memory_order_relaxed);
  queue_.push_back(std::move(frame));
  if (!writing_) do_write();
}

void PusherSession::do_write() {
  if (finished_) return;
  if (queue_.empty()) {
    if (close_after_ && !close_sent_) {
      close_sent_ = true;
      websocket::close_reason reason(static_cast<std::uint16_t>(close_after_->first));
      // A close frame's payload is at most 125 bytes, and its reason must stay UTF-8.
      const auto text = utf8_prefix(close_after_->second, 120);
      reason.reason.assign(text.data(), text.size());
      writing_ = true;
      ws_.async_close(reason, [self = shared_from_this()](beast::error_code) {
        self->writing_ = false;
        self->finish();
      });
    }
    return;
  }
  // Beast has begun a closing handshake (the client's close): its close frame is the last word.
  if (!ws_.is_open()) return;
  writing_ = true;
  in_flight_ = std::min(queue_.size(), kMaxFramesPerWrite);
  headers_.resize(in_flight_);
  WriteGate::Buffers buffers;
  buffers.reserve(2 * in_flight_);
  for (std::size_t i = 0; i < in_flight_; ++i) {
    headers_[i] = text_frame_header(queue_[i]->size());
    buffers.emplace_back(headers_[i].bytes.data(), headers_[i].size);
    buffers.emplace_back(asio::buffer(*queue_[i]));
  }
  ws_.next_layer().write(std::move(buffers), [self = shared_from_this()](beast::error_code ec, std::size_t) {
    self->writing_ = false;
    if (ec) {
      self->finish();
      return;
    }
    self->contained([&] {
      self->queue_.erase(self->queue_.begin(), self->queue_.begin() + static_cast<std::ptrdiff_t>(self->in_flight_));
      self->in_flight_ = 0;
      self->do_write();
    });
  });
}

void PusherSession::finish() {
  if (finished_) return;
  finished_ = true;
  for (const auto& s : subs_) {
    if (s.key) hub_->untrack_key(*s.key);
    hub_->remove_subscriber(s.channel, this);
  }
  subs_.clear();
  grants_.clear();
  address_slot_.reset();
  if (open_) hub_->remove_session(serial_);
  // Pending operations complete with errors and release their references to this socket.
  beast::error_code ignored;
  beast::get_lowest_layer(ws_).cancel(ignored);
  if (!writing_) {
    beast::get_lowest_layer(ws_).shutdown(asio::ip::tcp::socket::shutdown_both, ignored);
    beast::get_lowest_layer(ws_).close(ignored);
  }
}

}  // namespace mediagen::realtime
