// The subscriptions of one socket: subscribe (signature, then the order's snapshot read on the
// blocking pool), unsubscribe, delivery in seq order, and the keys behind each subscription.
#include "pusher_session.hpp"

#include <algorithm>
#include <chrono>

#include <boost/asio/post.hpp>

#include "mediagen/core/utf8.hpp"
#include "mediagen/db/blocking_pool.hpp"
#include "mediagen/realtime/channel_signer.hpp"
#include "pusher_frames.hpp"

namespace mediagen::realtime {

namespace asio = boost::asio;

namespace {

std::int64_t wall_ms(TimePoint t) {
  return std::chrono::duration_cast<std::chrono::milliseconds>(t.time_since_epoch()).count();
}

}  // namespace

PusherSession::Subscription* PusherSession::find(const std::string& channel) {
  for (auto& s : subs_) {
    if (s.channel == channel) return &s;
  }
  return nullptr;
}

void PusherSession::refuse_subscription(const std::string& channel, int status, int code, std::string_view message) {
  send(subscription_error_frame(channel, status, message));
  send(error_frame(code, message));
}

void PusherSession::subscribe(const ClientMessage& m) {
  if (auto* existing = find(m.channel)) {
    if (!existing->pending) send(subscription_succeeded_frame(m.channel));
    return;
  }
  auto channel = parse_channel(m.channel);
  if (!channel) {
    // The name is echoed so the client can match the refusal, cut where no code point splits.
    refuse_subscription(std::string(utf8_prefix(m.channel, kMaxChannelName)), 403, error_code::unauthorized,
                        "Only the private channels of this server can be subscribed");
    return;
  }
  if (subs_.size() >= hub_->options.max_subscriptions) {
    refuse_subscription(m.channel, 429, error_code::subscription_limit, "Too many subscriptions on this connection");
    return;
  }
  const std::string socket_id = hub_->socket_id(serial_);
  if (m.auth.empty() || !hub_->signer.verify(socket_id, m.channel, m.auth)) {
    refuse_subscription(m.channel, 401, error_code::unauthorized,
                        m.auth.empty() ? "Auth is required to subscribe to a private channel"
                                       : "Invalid signature for this socket and channel");
    return;
  }
  // A grant that came with /broadcasting/auth; one that arrives later is attached then.
  std::optional<Grant> grant;
  for (auto it = grants_.begin(); it != grants_.end(); ++it) {
    if (it->channel == m.channel) {
      grant = std::move(*it);
      grants_.erase(it);
      break;
    }
  }
  // Registered before the snapshot is read, so no event falls between the two; events that
  // arrive meanwhile are held and sent after it.
  subs_.push_back(Subscription{.channel = m.channel});
  hub_->add_subscriber(m.channel, shared_from_this());
  if (channel->kind != ChannelKind::order || !hub_->hooks.snapshot) {
    complete_subscribe(m.channel, std::move(grant), std::nullopt);
    return;
  }
  auto hub = hub_;
  // A snapshot that cannot be read fails the socket (1011): the client reconnects and gets one,
  // rather than a subscription that silently lacks the current state.
  hub->pool.submit([hub, self = shared_from_this(), name = m.channel, ch = *channel,
                    grant = std::move(grant)](db::Resources& r) mutable {
    std::optional<Event> snapshot;
    std::exception_ptr error;
    try {
      snapshot = hub->hooks.snapshot(r, ch);
    } catch (...) {
      error = std::current_exception();
    }
    auto ex = self->executor();
    asio::post(ex, [self = std::move(self), name = std::move(name), grant = std::move(grant),
                    snapshot = std::move(snapshot), error]() mutable {
      self->contained([&] {
        if (error) std::rethrow_exception(error);
        self->complete_subscribe(name, std::move(grant), std::move(snapshot));
      });
    });
  });
}

void PusherSession::complete_subscribe(const std::string& channel, std::optional<Grant> grant,
                                       std::optional<Event> snapshot) {
  if (finished_) return;
  auto* sub = find(channel);
  if (sub == nullptr || !sub->pending) return;  // unsubscribed meanwhile
  sub->pending = false;
  if (grant) attach(*sub, *grant);
  auto held = std::move(sub->held);
  send(subscription_succeeded_frame(channel));
  if (snapshot) {
    sub->last_seq = snapshot->seq;
    send(wire_frame(*snapshot));
  }
  for (auto& [frame, seq] : held) send_in_order(*sub, std::move(frame), seq);
}

void PusherSession::send_in_order(Subscription& sub, Frame frame, std::int64_t seq) {
  if (seq != 0) {
    if (seq <= sub.last_seq) return;
    sub.last_seq = seq;
  }
  send(std::move(frame));
}

void PusherSession::unsubscribe(const std::string& channel) {
  auto it = std::find_if(subs_.begin(), subs_.end(), [&](const Subscription& s) { return s.channel == channel; });
  if (it == subs_.end()) return;
  if (it->key) hub_->untrack_key(*it->key);
  subs_.erase(it);
  hub_->remove_subscriber(channel, this);
  recompute_expiry();
}

void PusherSession::recompute_expiry() {
  std::int64_t earliest = std::numeric_limits<std::int64_t>::max();
  for (const auto& s : subs_) {
    if (s.expires_at) earliest = std::min(earliest, wall_ms(*s.expires_at));
  }
  expires_wall_ms.store(earliest, std::memory_order_relaxed);
}

void PusherSession::deliver(const std::string& channel, const Frame& frame, std::int64_t seq) {
  contained([&] {
    if (finished_ || close_after_) return;
    auto* sub = find(channel);
    if (sub == nullptr) return;
    if (sub->pending) {
      if (sub->held.size() < 64) sub->held.emplace_back(frame, seq);
      return;
    }
    send_in_order(*sub, frame, seq);
  });
}

void PusherSession::attach(Subscription& sub, const Grant& grant) {
  if (sub.key) return;
  sub.key = grant.key_hash;
  sub.expires_at = grant.expires_at;
  hub_->track_key(grant.key_hash, grant.user);
  recompute_expiry();
}

void PusherSession::add_grant(Grant grant) {
  contained([&] {
    if (finished_) return;
    if (auto* sub = find(grant.channel)) {
      attach(*sub, grant);
      return;
    }
    // Bounded: a client that asks for grants it never uses cannot grow the socket.
    if (grants_.size() >= hub_->options.max_subscriptions) grants_.erase(grants_.begin());
    grants_.push_back(std::move(grant));
  });
}

void PusherSession::revoke(const crypto::Sha256Digest& key) {
  contained([&] {
    if (finished_) return;
    for (const auto& s : subs_) {
      if (s.key && *s.key == key) {
        close_with(error_code::unauthorized, "The key that authorized a subscription is no longer valid");
        return;
      }
    }
  });
}

}  // namespace mediagen::realtime
