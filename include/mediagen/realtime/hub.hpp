#pragma once
// The realtime side of one instance: the Pusher protocol 7 sockets at /app/{app_key}, the
// channel registry, and the fan-out of events to every instance through Redis.
//
// Threads: sockets live on the I/O threads; hooks that read PostgreSQL or Redis run on the
// blocking pool; events published here are posted to the sockets' executors; one thread of its
// own publishes to Redis, so a slow or absent Redis never blocks a publisher (local sockets are
// served directly, and other instances catch up when Redis returns).
#include <chrono>
#include <cstddef>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>

#include "mediagen/cache/redis.hpp"
#include "mediagen/core/crypto.hpp"
#include "mediagen/core/duration_histogram.hpp"
#include "mediagen/core/ids.hpp"
#include "mediagen/realtime/channel.hpp"
#include "mediagen/realtime/event.hpp"
#include "mediagen/realtime/grant.hpp"

namespace boost::asio {
class io_context;
}
namespace mediagen::db {
class BlockingPool;
struct Resources;
}  // namespace mediagen::db
namespace mediagen::http {
class UpgradeHandler;
}
namespace mediagen {
class Clock;
}

namespace mediagen::realtime {

class ChannelSigner;

struct HubOptions {
  // Pusher's activity_timeout: a client silent this long gets a pusher:ping, and is closed with
  // 4201 when nothing arrives within pong_timeout after it.
  std::chrono::seconds activity_timeout{120};
  std::chrono::seconds pong_timeout{30};
  std::size_t max_connections = 100000;   // beyond it: 4100, the client backs off
  // Open sockets (handshakes included) from one client address; beyond it 4100 too. High enough
  // for an office behind one NAT, low enough that one address cannot take the instance.
  std::size_t max_connections_per_address = 1000;
  std::size_t max_message_bytes = 10240;  // Pusher's own message cap; larger frames close with 1009
  std::size_t max_subscriptions = 100;    // per socket
  std::size_t max_queued_frames = 1024;   // a consumer this far behind is closed (4100)
  std::string fanout_channel = "mediagen:realtime";
  // The secret every instance shares (MEDIAGEN_SECRET): the key that signs and checks fan-out
  // messages is derived from it.
  std::string fanout_secret;
  bool single_threaded = true;            // one I/O thread: sockets need no strand
};

// snapshot and key_valid are called on a blocking-pool thread, refused on the I/O thread.
struct HubHooks {
  // The current state of a channel's object, sent right after subscription_succeeded (the order
  // channel's snapshot); nullopt when there is none.
  std::function<std::optional<Event>(db::Resources&, const Channel&)> snapshot;
  // Whether a key still opens channels: it exists, is not disabled or expired, its user is not
  // blocked. Asked when a subscription's grant is used and key_cached does not know the key, and
  // after an invalidation names the key or its user.
  std::function<bool(db::Resources&, const crypto::Sha256Digest&)> key_valid;
  // The same answer from the key cache, or nullopt when the cache does not hold the key. Called on
  // the I/O thread: must not block.
  std::function<std::optional<bool>(const crypto::Sha256Digest&)> key_cached;
  // The client's address from the peer's and its X-Forwarded-For header (the HTTP pipeline's
  // rule for trusted proxies); without it, the peer's. Must not block.
  std::function<std::string(std::string_view peer, std::optional<std::string_view> forwarded_for)> client_ip;
  // A reason to refuse a new socket from this client address (an IP ban), or nullopt. Must not block.
  std::function<std::optional<std::string>(std::string_view client_ip)> refused;
};

struct HubStats {
  std::size_t connections = 0;
  std::size_t subscriptions = 0;
  std::uint64_t delivered = 0;          // frames queued to sockets
  std::uint64_t address_refused = 0;    // sockets refused for max_connections_per_address
  std::uint64_t fanout_dropped = 0;     // malformed messages on the fan-out channel
  std::uint64_t fanout_unsigned = 0;    // fan-out messages without a valid signature
  std::uint64_t publish_failed = 0;     // events that could not be sent to Redis
};

class Hub final : public Broadcaster {
 public:
  Hub(boost::asio::io_context& ioc, HubOptions options, std::string app_key, const ChannelSigner& signer,
      db::BlockingPool& pool, HubHooks hooks, cache::RedisOptions redis, const Clock& clock);
  ~Hub() override;  // stop()
  Hub(const Hub&) = delete;
  Hub& operator=(const Hub&) = delete;

  http::UpgradeHandler& upgrade_handler();
  void start();
  // Tells every socket to reconnect elsewhere (4200) and refuses new ones.
  void shutdown();
  // Joins the Redis publishing thread; events still queued are dropped.
  void stop();

  void publish(Event event) override;
  // A message from the fan-out channel (any thread). Messages of this instance are ignored;
  // unsigned, wrongly signed and malformed ones are dropped and counted.
  void on_fanout(std::string_view payload);
  // /broadcasting/auth granted a channel to a socket (on a blocking-pool thread): the instance
  // holding the socket learns which key did (directly, or through the fan-out channel), so that
  // the socket can be closed when the key stops being valid. Subscribing never waits for it.
  // False when the socket is not here and the grant could not be published.
  bool record_grant(cache::Redis& redis, const Grant& grant);
  // An invalidation named a key or a user: their sockets are checked and closed with 4009 if the
  // key no longer opens channels.
  void key_changed(const crypto::Sha256Digest& key_hash);
  void user_changed(UserId user);

  // The instance id used in socket ids and fan-out messages.
  const std::string& origin() const;
  HubStats stats() const;
  // mediagen_realtime_fanout_seconds: per event, from its arrival here until every local
  // subscriber's socket has taken its frame.
  const DurationHistogram& fanout_time() const;

 private:
  struct Impl;
  std::shared_ptr<Impl> impl_;
};

}  // namespace mediagen::realtime
