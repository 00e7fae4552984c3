#include "hub_core.hpp"

#include <algorithm>
#include <chrono>

#include <boost/asio/dispatch.hpp>
#include <boost/asio/post.hpp>

#include "mediagen/core/crypto.hpp"
#include "mediagen/core/log.hpp"
#include "mediagen/db/blocking_pool.hpp"
#include "pusher_session.hpp"

namespace mediagen::realtime {

namespace asio = boost::asio;

std::int64_t steady_ms() {
  return std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::steady_clock::now().time_since_epoch())
      .count();
}

namespace {

std::string make_origin() {
  // A random 1..999999999: socket ids from different instances do not collide.
  const std::string bytes = crypto::random_bytes(4);
  std::uint32_t v = 0;
  for (unsigned char c : bytes) v = (v << 8) | c;
  return std::to_string(v % 999999999u + 1u);
}

}  // namespace

std::uint64_t HubCore::new_serial() {
  const std::string bytes = crypto::random_bytes(8);
  std::uint64_t v = 0;
  for (unsigned char c : bytes) v = (v << 8) | c;
  // 63 bits (at most 19 digits, within a socket id's 20), never 0.
  v &= ~(std::uint64_t{1} << 63);
  return v == 0 ? 1 : v;
}

HubCore::HubCore(asio::io_context& io, HubOptions opts, std::string key, const ChannelSigner& s, db::BlockingPool& p,
                 HubHooks h, const Clock& c)
    : ioc(io),
      options(std::move(opts)),
      app_key(std::move(key)),
      signer(s),
      pool(p),
      hooks(std::move(h)),
      clock(c),
      origin(make_origin()) {}

bool HubCore::add_session(std::uint64_t serial, const std::shared_ptr<PusherSession>& session) {
  std::lock_guard lock(mutex_);
  if (sessions_.size() >= options.max_connections) return false;
  return sessions_.emplace(serial, session).second;
}

void HubCore::remove_session(std::uint64_t serial) {
  std::lock_guard lock(mutex_);
  sessions_.erase(serial);
}

std::shared_ptr<PusherSession> HubCore::find_session(std::uint64_t serial) const {
  std::lock_guard lock(mutex_);
  auto it = sessions_.find(serial);
  return it == sessions_.end() ? nullptr : it->second.lock();
}

std::vector<std::shared_ptr<PusherSession>> HubCore::all_sessions() const {
  std::vector<std::shared_ptr<PusherSession>> out;
  std::lock_guard lock(mutex_);
  out.reserve(sessions_.size());
  for (const auto& [serial, weak] : sessions_) {
    if (auto s = weak.lock()) out.push_back(std::move(s));
  }
  return out;
}

std::size_t HubCore::session_count() const {
  std::lock_guard lock(mutex_);
  return sessions_.size();
}

void HubCore::add_subscriber(const std::string& channel, const std::shared_ptr<PusherSession>& session) {
  std::lock_guard lock(mutex_);
  channels_[channel].push_back(Subscriber{session.get(), session});
  ++subscriptions_;
}

void HubCore::remove_subscriber(const std::string& channel, const PusherSession* session) {
  std::lock_guard lock(mutex_);
  auto it = channels_.find(channel);
  if (it == channels_.end()) return;
  auto& list = it->second;
  auto found = std::find_if(list.begin(), list.end(), [&](const Subscriber& s) { return s.raw == session; });
  if (found == list.end()) return;
  *found = std::move(list.back());
  list.pop_back();
  --subscriptions_;
  if (list.empty()) channels_.erase(it);
}

std::size_t HubCore::subscription_count() const {
  std::lock_guard lock(mutex_);
  return subscriptions_;
}

void HubCore::deliver(const std::string& channel, const Frame& frame, std::int64_t seq,
                      std::chrono::steady_clock::time_point arrived) {
  std::vector<std::weak_ptr<PusherSession>> targets;
  {
    std::lock_guard lock(mutex_);
    auto it = channels_.find(channel);
    if (it == channels_.end()) return;
    targets.reserve(it->second.size());
    for (const auto& s : it->second) targets.push_back(s.session);
  }
  if (options.single_threaded) {
    // Every socket runs on the one I/O thread: one hop for the whole channel. A socket with no
    // write in progress hands its frame to the kernel inside deliver(), so the loop's end is
    // when every subscriber has it or is already writing.
    asio::post(ioc, [self = shared_from_this(), targets = std::move(targets), channel, frame, seq, arrived] {
      for (const auto& weak : targets) {
        if (auto s = weak.lock()) s->deliver(channel, frame, seq);
      }
      self->fanout_time.observe(std::chrono::steady_clock::now() - arrived);
    });
    return;
  }
  // One hop per socket, on its own strand: the last of them to run counts the event.
  struct Pending {
    Pending(std::shared_ptr<HubCore> c, std::chrono::steady_clock::time_point a, std::size_t n)
        : core(std::move(c)), arrived(a), left(n) {}
    std::shared_ptr<HubCore> core;
    std::chrono::steady_clock::time_point arrived;
    std::atomic<std::size_t> left;
    void done() {
      if (left.fetch_sub(1, std::memory_order_acq_rel) == 1) {
        core->fanout_time.observe(std::chrono::steady_clock::now() - arrived);
      }
    }
  };
  auto pending = std::make_shared<Pending>(shared_from_this(), arrived, targets.size());
  for (const auto& weak : targets) {
    auto s = weak.lock();
    if (!s) {
      pending->done();
      continue;
    }
    auto ex = s->executor();
    asio::post(ex, [s = std::move(s), channel, frame, seq, pending] {
      s->deliver(channel, frame, seq);
      pending->done();
    });
  }
}

void HubCore::track_key(const crypto::Sha256Digest& key, UserId user) {
  std::lock_guard lock(mutex_);
  auto& entry = keys_[key];
  entry.first = user;
  ++entry.second;
}

void HubCore::untrack_key(const crypto::Sha256Digest& key) {
  std::lock_guard lock(mutex_);
  auto it = keys_.find(key);
  if (it == keys_.end()) return;
  if (--it->second.second == 0) keys_.erase(it);
}

std::vector<crypto::Sha256Digest> HubCore::keys_of(UserId user) const {
  std::vector<crypto::Sha256Digest> out;
  std::lock_guard lock(mutex_);
  for (const auto& [key, entry] : keys_) {
    if (entry.first == user) out.push_back(key);
  }
  return out;
}

bool HubCore::tracks(const crypto::Sha256Digest& key) const {
  std::lock_guard lock(mutex_);
  return keys_.count(key) != 0;
}

void check_key(const std::shared_ptr<HubCore>& core, const crypto::Sha256Digest& key) {
  if (core->hooks.key_cached) {
    if (const auto cached = core->hooks.key_cached(key)) {
      if (!*cached) core->revoke(key);
      return;
    }
  }
  if (!core->hooks.key_valid) return;
  core->pool.submit([core, key](db::Resources& r) {
    try {
      if (!core->hooks.key_valid(r, key)) core->revoke(key);
    } catch (const std::exception& e) {
      log::warn("could not check a key behind realtime subscriptions", {{"error", e.what()}});
    }
  });
}

void HubCore::revoke(const crypto::Sha256Digest& key) {
  for (auto& s : all_sessions()) {
    auto ex = s->executor();
    asio::dispatch(ex, [s, key] { s->revoke(key); });
  }
}

}  // namespace mediagen::realtime
