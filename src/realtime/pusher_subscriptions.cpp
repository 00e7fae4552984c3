// The subscriptions of one socket: subscribe (signature, the key behind its grant, then the
// order's snapshot read on the blocking pool), unsubscribe, delivery in seq order, and the keys
// behind each subscription.
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

constexpr std::string_view kKeyGone = "The key that authorized this subscription is no longer valid";
constexpr std::string_view kGrantDropped =
    "This socket holds too many unused authorizations: ask /broadcasting/auth again";

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
  std::optional<Grant> grant = take_grant(m.channel);
  if (!grant && grants_dropped_) {
    refuse_subscription(m.channel, 401, error_code::unauthorized, kGrantDropped);
    return;
  }
  // The key behind the grant must still open channels: asked of the key cache here, of
  // PostgreSQL on the blocking pool when the cache does not hold it.
  bool ask_key = false;
  if (grant) {
    const auto cached = hub_->hooks.key_cached ? hub_->hooks.key_cached(grant->key_hash) : std::nullopt;
    if (cached && !*cached) {
      refuse_subscription(m.channel, 401, error_code::unauthorized, kKeyGone);
      return;
    }
    ask_key = !cached && hub_->hooks.key_valid;
  }
  // Registered before the snapshot is read, so no event falls between the two; events that
  // arrive meanwhile are held and sent after it. The key is tracked from now on, so that an
  // invalidation landing while the subscription is set up closes the socket.
  const std::uint64_t id = ++last_subscription_id_;
  subs_.push_back(Subscription{.channel = m.channel, .id = id});
  if (grant) attach(subs_.back(), *grant);
  hub_->add_subscriber(m.channel, shared_from_this());
  const bool wants_snapshot = channel->kind == ChannelKind::order && hub_->hooks.snapshot;
  if (!ask_key && !wants_snapshot) {
    complete_subscribe(m.channel, id, true, std::nullopt);
    return;
  }
  std::optional<crypto::Sha256Digest> key;
  if (ask_key) key = grant->key_hash;
  complete_off_thread(m.channel, id, *channel, key, wants_snapshot);
}

void PusherSession::complete_off_thread(const std::string& name, std::uint64_t id, const Channel& channel,
                                        std::optional<crypto::Sha256Digest> key, bool wants_snapshot) {
  auto hub = hub_;
  // A key or snapshot that cannot be read fails the socket (1011): the client reconnects and gets
  // one, rather than a subscription that silently lacks the current state or was never checked.
  hub->pool.submit([hub, self = shared_from_this(), name, id, ch = channel, key,
                    wants_snapshot](db::Resources& r) mutable {
    bool key_valid = true;
    std::optional<Event> snapshot;
    std::exception_ptr error;
    try {
      if (key) key_valid = hub->hooks.key_valid(r, *key);
      if (key_valid && wants_snapshot) snapshot = hub->hooks.snapshot(r, ch);
    } catch (...) {
      error = std::current_exception();
    }
    auto ex = self->executor();
    asio::post(ex, [self = std::move(self), name = std::move(name), id, key_valid, snapshot = std::move(snapshot),
                    error]() mutable {
      self->contained([&] {
        if (error) std::rethrow_exception(error);
        self->complete_subscribe(name, id, key_valid, std::move(snapshot));
      });
    });
  });
}

std::optional<Grant> PusherSession::take_grant(const std::string& channel) {
  for (auto it = grants_.begin(); it != grants_.end(); ++it) {
    if (it->channel == channel) {
      Grant grant = std::move(*it);
      grants_.erase(it);
      return grant;
    }
  }
  return std::nullopt;
}

void PusherSession::complete_subscribe(const std::string& channel, std::uint64_t id, bool key_valid,
                                       std::optional<Event> snapshot) {
  if (finished_) return;
  auto* sub = find(channel);
  // Unsubscribed meanwhile, perhaps subscribed again: that later subscription waits for its own check.
  if (sub == nullptr || sub->id != id || !sub->pending) return;
  if (!key_valid) {
    unsubscribe(channel);
    refuse_subscription(channel, 401, error_code::unauthorized, kKeyGone);
    return;
  }
  sub->pending = false;
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
      // The subscription came first (the grant travelled from another instance): the key is
      // checked now, and the socket closed (4009) if it no longer opens channels.
      if (sub->key) return;
      attach(*sub, grant);
      check_key(hub_, grant.key_hash);
      return;
    }
    // One grant per channel, the newest.
    std::erase_if(grants_, [&](const Grant& g) { return g.channel == grant.channel; });
    // Bounded: a client that asks for grants it never uses cannot grow the socket.
    if (grants_.size() >= hub_->options.max_subscriptions) {
      grants_.erase(grants_.begin());
      grants_dropped_ = true;
    }
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
