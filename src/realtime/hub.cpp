#include "mediagen/realtime/hub.hpp"

#include <charconv>
#include <condition_variable>
#include <deque>
#include <mutex>
#include <thread>

#include <boost/asio/dispatch.hpp>
#include <boost/asio/post.hpp>
#include <boost/asio/steady_timer.hpp>

#include "address_slots.hpp"
#include "fanout_message.hpp"
#include "fanout_signature.hpp"
#include "hub_core.hpp"
#include "mediagen/core/contain.hpp"
#include "mediagen/core/log.hpp"
#include "mediagen/db/blocking_pool.hpp"
#include "mediagen/http/message.hpp"
#include "mediagen/http/upgrade.hpp"
#include "pusher_frames.hpp"
#include "pusher_session.hpp"

namespace mediagen::realtime {

namespace asio = boost::asio;

namespace {

class Upgrade final : public http::UpgradeHandler {
 public:
  explicit Upgrade(std::shared_ptr<HubCore> core)
      : core_(std::move(core)), slots_(std::make_shared<AddressSlots>(core_->options.max_connections_per_address)) {}

  std::uint64_t address_refused() const { return slots_->refused(); }

  bool wants(std::string_view target) const override { return target.rfind("/app/", 0) == 0; }

  void take(asio::ip::tcp::socket socket, boost::beast::http::request<boost::beast::http::string_body> request,
            std::string peer_ip) override {
    try {
      start_session(std::move(socket), std::move(request), peer_ip);
    } catch (...) {
      // That socket is closed as it unwinds; the others and the listener go on.
      report_contained(&core_->pool.counters(), Boundary::socket, std::current_exception(),
                       {{"peer", std::string_view(peer_ip)}, {"stage", "upgrade"}});
    }
  }

 private:
  void start_session(asio::ip::tcp::socket socket,
                     boost::beast::http::request<boost::beast::http::string_body> request,
                     const std::string& peer_ip) {
    // Every X-Forwarded-For line, as the HTTP pipeline reads them (stages/client_ip.cpp).
    std::vector<std::string_view> lines;
    for (auto [it, end] = request.equal_range("X-Forwarded-For"); it != end; ++it) lines.push_back(it->value());
    const std::string joined = http::join_header_lines(lines);
    const std::string ip =
        core_->hooks.client_ip
            ? core_->hooks.client_ip(peer_ip, lines.empty() ? std::nullopt : std::optional<std::string_view>(joined))
            : peer_ip;
    std::optional<std::string> refusal;
    if (core_->hooks.refused) refusal = core_->hooks.refused(ip);
    std::unique_ptr<AddressSlots::Slot> slot;
    if (!refusal) {
      slot = slots_->take(ip);
      if (!slot) refusal = "Too many connections from this address";
    }
    const auto serial = HubCore::new_serial();
    auto session = std::make_shared<PusherSession>(core_, std::move(socket), serial);
    session->start(std::move(request), std::move(refusal), std::move(slot));
  }

  std::shared_ptr<HubCore> core_;
  std::shared_ptr<AddressSlots> slots_;
};

// Events for the other instances go out on a thread of its own, so a slow or absent Redis never
// holds up whoever published.
class RedisPublisher {
 public:
  RedisPublisher(cache::RedisOptions options, std::string channel, std::atomic<std::uint64_t>& failed)
      : options_(std::move(options)), channel_(std::move(channel)), failed_(failed) {}
  ~RedisPublisher() { stop(); }

  void start() {
    thread_ = std::thread([this] { loop(); });
  }
  void stop() {
    {
      std::lock_guard lock(mutex_);
      stopping_ = true;
    }
    cv_.notify_all();
    if (thread_.joinable()) thread_.join();
  }
  void push(std::string message) {
    {
      std::lock_guard lock(mutex_);
      // While Redis is away the backlog is bounded: the oldest events go first (clients that
      // care reconcile by seq, or poll).
      if (queue_.size() >= kMaxBacklog) {
        queue_.pop_front();
        failed_.fetch_add(1, std::memory_order_relaxed);
      }
      queue_.push_back(std::move(message));
    }
    cv_.notify_one();
  }

 private:
  static constexpr std::size_t kMaxBacklog = 10000;

  void loop() {
    cache::Redis redis(options_);
    bool warned = false;
    for (;;) {
      std::deque<std::string> batch;
      {
        std::unique_lock lock(mutex_);
        cv_.wait(lock, [&] { return stopping_ || !queue_.empty(); });
        if (stopping_) return;
        batch.swap(queue_);
      }
      for (auto& message : batch) {
        try {
          redis.command({"PUBLISH", channel_, message});
          if (warned) log::info("realtime fan-out through Redis resumed");
          warned = false;
        } catch (const std::exception& e) {
          failed_.fetch_add(1, std::memory_order_relaxed);
          if (!warned) log::warn("realtime fan-out through Redis failed", {{"error", e.what()}});
          warned = true;
        }
      }
    }
  }

  cache::RedisOptions options_;
  std::string channel_;
  std::atomic<std::uint64_t>& failed_;
  std::mutex mutex_;
  std::condition_variable cv_;
  std::deque<std::string> queue_;
  bool stopping_ = false;
  std::thread thread_;
};

}  // namespace

struct Hub::Impl {
  Impl(asio::io_context& ioc, HubOptions options, std::string app_key, const ChannelSigner& signer,
       db::BlockingPool& pool, HubHooks hooks, cache::RedisOptions redis, const Clock& clock)
      : core(std::make_shared<HubCore>(ioc, options, std::move(app_key), signer, pool, std::move(hooks), clock)),
        upgrade(core),
        sweeper(std::make_shared<asio::steady_timer>(ioc)),
        publisher(std::move(redis), options.fanout_channel, core->publish_failed),
        fanout(fanout_key(options.fanout_secret)) {}

  std::shared_ptr<HubCore> core;
  Upgrade upgrade;
  std::shared_ptr<asio::steady_timer> sweeper;
  RedisPublisher publisher;
  FanoutSigner fanout;
  bool started = false;
};

namespace {

// Once a second: pings for silent sockets, closes for unanswered pings and expired keys. One
// timer for all sockets instead of one per socket.
void arm_sweeper(std::shared_ptr<HubCore> core, std::shared_ptr<asio::steady_timer> timer) {
  timer->expires_after(std::chrono::seconds(1));
  timer->async_wait([core, timer](const boost::system::error_code& ec) {
    if (ec) return;
    const auto now = steady_ms();
    const auto wall = std::chrono::duration_cast<std::chrono::milliseconds>(
                          core->clock.now().time_since_epoch())
                          .count();
    for (auto& s : core->all_sessions()) {
      auto ex = s->executor();
      asio::dispatch(ex, [s, now, wall] { s->check(now, wall); });
    }
    if (!core->stopping.load()) arm_sweeper(core, timer);
  });
}

// Hands a grant to the socket it names when that socket is on this instance; false otherwise.
bool attach_grant(HubCore& core, Grant grant) {
  const auto dot = grant.socket_id.find('.');
  if (dot == std::string::npos || std::string_view(grant.socket_id).substr(0, dot) != core.origin) return false;
  std::uint64_t serial = 0;
  const auto digits = std::string_view(grant.socket_id).substr(dot + 1);
  if (std::from_chars(digits.data(), digits.data() + digits.size(), serial).ec != std::errc{}) return true;
  if (auto s = core.find_session(serial)) {
    auto ex = s->executor();
    asio::dispatch(ex, [s, grant = std::move(grant)]() mutable { s->add_grant(std::move(grant)); });
  }
  return true;
}

}  // namespace

Hub::Hub(asio::io_context& ioc, HubOptions options, std::string app_key, const ChannelSigner& signer,
         db::BlockingPool& pool, HubHooks hooks, cache::RedisOptions redis, const Clock& clock)
    : impl_(std::make_shared<Impl>(ioc, std::move(options), std::move(app_key), signer, pool, std::move(hooks),
                                   std::move(redis), clock)) {}

Hub::~Hub() { stop(); }

http::UpgradeHandler& Hub::upgrade_handler() { return impl_->upgrade; }

void Hub::start() {
  if (impl_->started) return;
  impl_->started = true;
  impl_->publisher.start();
  arm_sweeper(impl_->core, impl_->sweeper);
}

void Hub::shutdown() {
  auto core = impl_->core;
  core->stopping = true;
  auto timer = impl_->sweeper;
  asio::post(core->ioc, [timer] { timer->cancel(); });
  for (auto& s : core->all_sessions()) {
    auto ex = s->executor();
    asio::dispatch(ex, [s] { s->close_with(error_code::reconnect, "Server is shutting down, reconnect"); });
  }
}

void Hub::stop() { impl_->publisher.stop(); }

void Hub::publish(Event event) {
  const auto arrived = std::chrono::steady_clock::now();
  auto& core = *impl_->core;
  auto frame = std::make_shared<const std::string>(wire_frame(event));
  core.deliver(event.channel, frame, event.seq, arrived);
  impl_->publisher.push(impl_->fanout.sign(format_fanout(core.origin, *frame)));
}

void Hub::on_fanout(std::string_view signed_payload) {
  const auto arrived = std::chrono::steady_clock::now();
  auto& core = *impl_->core;
  const auto verified = impl_->fanout.verify(signed_payload);
  if (!verified) {
    // Whoever wrote it does not hold the secret. Logged now and then: the sender sets the rate.
    const auto n = core.fanout_unsigned.fetch_add(1, std::memory_order_relaxed);
    if (n % 1000 == 0) log::warn("dropped a fan-out message without a valid signature", {{"dropped", static_cast<std::int64_t>(n + 1)}});
    return;
  }
  const std::string_view payload = *verified;
  if (auto grant = parse_grant_message(payload)) {
    if (grant->origin != core.origin) attach_grant(core, std::move(grant->grant));
    return;
  }
  auto message = parse_fanout(payload);
  if (!message) {
    core.fanout_dropped.fetch_add(1, std::memory_order_relaxed);
    log::warn("dropped a malformed realtime fan-out message");
    return;
  }
  if (message->origin == core.origin) return;  // delivered locally when published
  core.deliver(message->channel, std::make_shared<const std::string>(message->frame), message->seq, arrived);
}

bool Hub::record_grant(cache::Redis& redis, const Grant& grant) {
  auto& core = *impl_->core;
  if (attach_grant(core, grant)) return true;
  // The socket is another instance's (or gone): the grant travels like an event. It is sent
  // before the answer that lets the client subscribe, and it is applied whenever it arrives.
  try {
    redis.command({"PUBLISH", core.options.fanout_channel, impl_->fanout.sign(format_grant_message(core.origin, grant))});
    return true;
  } catch (const std::exception& e) {
    log::warn("could not pass a channel grant to the other instances", {{"error", e.what()}});
    return false;
  }
}

void Hub::key_changed(const crypto::Sha256Digest& key_hash) {
  if (!impl_->core->tracks(key_hash)) return;
  check_key(impl_->core, key_hash);
}

void Hub::user_changed(UserId user) {
  for (const auto& key : impl_->core->keys_of(user)) key_changed(key);
}

const std::string& Hub::origin() const { return impl_->core->origin; }

const DurationHistogram& Hub::fanout_time() const { return impl_->core->fanout_time; }

HubStats Hub::stats() const {
  const auto& core = *impl_->core;
  return HubStats{.connections = core.session_count(),
                  .subscriptions = core.subscription_count(),
                  .delivered = core.delivered.load(),
                  .address_refused = impl_->upgrade.address_refused(),
                  .fanout_dropped = core.fanout_dropped.load(),
                  .fanout_unsigned = core.fanout_unsigned.load(),
                  .publish_failed = core.publish_failed.load()};
}

}  // namespace mediagen::realtime
