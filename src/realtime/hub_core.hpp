#pragma once
// State shared by the hub and its sockets: the socket table, the channel registry and the keys
// behind live subscriptions. Internal to the realtime library.
#include <atomic>
#include <chrono>
#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

#include <boost/asio/io_context.hpp>

#include "mediagen/core/clock.hpp"
#include "mediagen/core/crypto.hpp"
#include "mediagen/core/duration_histogram.hpp"
#include "mediagen/core/ids.hpp"
#include "mediagen/realtime/hub.hpp"

namespace mediagen::realtime {

class PusherSession;
using Frame = std::shared_ptr<const std::string>;

std::int64_t steady_ms();

struct HubCore;
// Closes (4009) the sockets holding subscriptions of a key that no longer opens channels: asked of
// the key cache at once, of PostgreSQL on the blocking pool when the cache does not hold the key.
void check_key(const std::shared_ptr<HubCore>& core, const crypto::Sha256Digest& key);

struct HubCore : std::enable_shared_from_this<HubCore> {
  HubCore(boost::asio::io_context& io, HubOptions opts, std::string key, const ChannelSigner& s, db::BlockingPool& p,
          HubHooks h, const Clock& c);

  boost::asio::io_context& ioc;
  const HubOptions options;
  const std::string app_key;
  const ChannelSigner& signer;
  db::BlockingPool& pool;
  const HubHooks hooks;
  const Clock& clock;
  const std::string origin;  // random per process: socket ids and fan-out messages carry it
  std::atomic<bool> stopping{false};

  std::atomic<std::uint64_t> delivered{0};
  std::atomic<std::uint64_t> fanout_dropped{0};
  std::atomic<std::uint64_t> fanout_unsigned{0};
  std::atomic<std::uint64_t> publish_failed{0};
  // Per event with local subscribers: from its arrival (published here, or read from the fan-out
  // channel) until every local subscriber's socket has taken its frame.
  DurationHistogram fanout_time;

  std::string socket_id(std::uint64_t serial) const { return origin + "." + std::to_string(serial); }
  // A socket's number, from the CSPRNG: nobody can name a socket before it exists, so nobody can
  // obtain an authorization for one in advance (and use it once their key is gone).
  static std::uint64_t new_serial();

  // The socket table. False when full (the socket is then refused with 4100), or in the
  // unlikely case that the number is taken.
  bool add_session(std::uint64_t serial, const std::shared_ptr<PusherSession>& session);
  void remove_session(std::uint64_t serial);
  std::shared_ptr<PusherSession> find_session(std::uint64_t serial) const;
  std::vector<std::shared_ptr<PusherSession>> all_sessions() const;
  std::size_t session_count() const;

  // The channel registry: who receives a channel's events on this instance.
  void add_subscriber(const std::string& channel, const std::shared_ptr<PusherSession>& session);
  void remove_subscriber(const std::string& channel, const PusherSession* session);
  std::size_t subscription_count() const;
  // Queues a frame to every local subscriber of the channel (any thread). `arrived` is when the
  // event reached this instance: fanout_time counts from it.
  void deliver(const std::string& channel, const Frame& frame, std::int64_t seq,
               std::chrono::steady_clock::time_point arrived = std::chrono::steady_clock::now());

  // Keys behind live subscriptions, so that an invalidation is checked only for keys in use.
  void track_key(const crypto::Sha256Digest& key, UserId user);
  void untrack_key(const crypto::Sha256Digest& key);
  std::vector<crypto::Sha256Digest> keys_of(UserId user) const;
  bool tracks(const crypto::Sha256Digest& key) const;
  // Closes, with 4009, every socket holding a subscription that this key authorized.
  void revoke(const crypto::Sha256Digest& key);

 private:
  struct Subscriber {
    const PusherSession* raw;
    std::weak_ptr<PusherSession> session;
  };
  mutable std::mutex mutex_;
  std::unordered_map<std::uint64_t, std::weak_ptr<PusherSession>> sessions_;
  std::unordered_map<std::string, std::vector<Subscriber>> channels_;
  std::size_t subscriptions_ = 0;
  std::map<crypto::Sha256Digest, std::pair<UserId, std::size_t>> keys_;
};

}  // namespace mediagen::realtime
