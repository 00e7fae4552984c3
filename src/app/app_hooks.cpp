// The hooks that connect App's parts: what the realtime hub asks, what the workers report, and
// the fan-out messages every instance exchanges through Redis.
//
// Waking workers has one path: after a commit put work in the queue, the workers of this
// instance are woken at once and the others by a message on the queue channel; the worker
// pool's own timer (WorkerPoolOptions::wake_interval) covers a message lost on the way.
#include "mediagen/app/app.hpp"

#include "invalidation.hpp"
#include "mediagen/auth/keys.hpp"
#include "mediagen/cache/redis.hpp"
#include "mediagen/core/log.hpp"
#include "mediagen/realtime/channel.hpp"
#include "mediagen/orders/queue.hpp"
#include "settings.hpp"

namespace mediagen::app {

namespace {

// What the HTTP pipeline admits (stages/authenticate.cpp): a known key, not disabled, its user
// not blocked, not past its expiry.
bool opens_channels(const auth::Principal* key, TimePoint now) {
  return key != nullptr && !key->key_disabled && !key->user_blocked && (!key->expires_at || *key->expires_at > now);
}

}  // namespace

realtime::HubHooks App::hub_hooks() {
  return {
      .snapshot = [](db::Resources& r, const realtime::Channel& channel) -> std::optional<realtime::Event> {
        if (channel.kind != realtime::ChannelKind::order) return std::nullopt;
        return orders::order_snapshot(r.db, *channel.order_id);
      },
      // A grant's key, checked when the grant is used and after invalidations. A read from
      // PostgreSQL is cached with the ticket taken before it, so an invalidation that lands
      // meanwhile keeps it out.
      .key_valid =
          [this](db::Resources& r, const crypto::Sha256Digest& digest) {
            const auto ticket = keys_.begin_read();
            std::shared_ptr<const auth::Principal> key;
            if (auto found = auth::find_key_by_hash(r.db, digest)) {
              key = std::make_shared<const auth::Principal>(std::move(*found));
            }
            keys_.put(digest, key, ticket);
            return opens_channels(key.get(), clock_.now());
          },
      .key_cached = [this](const crypto::Sha256Digest& digest) -> std::optional<bool> {
        auto cached = keys_.find(digest);
        if (!cached) return std::nullopt;
        return opens_channels(cached->get(), clock_.now());
      },
      // X-Forwarded-For only from trusted proxies, as for every request.
      .client_ip = [this](std::string_view peer, std::optional<std::string_view> forwarded) {
        return http::resolve_client_ip(peer, forwarded, config_.trusted_proxies);
      },
      // The ban of repeated unknown paths covers sockets too (spec 8.1: all paths).
      .refused = [this](std::string_view ip) -> std::optional<std::string> {
        if (bans_.check(ip, clock_.now())) return "IP banned after repeated unknown paths";
        return std::nullopt;
      }};
}

db::BlockingPoolOptions App::blocking_options_with_hooks() {
  auto options = blocking_options(config_);
  options.on_commit = [this](const std::vector<std::int64_t>& users) { profiles_changed(users); };
  return options;
}

workers::WorkerPoolOptions App::worker_options_with_hooks() {
  auto options = worker_options(config_);
  options.on_commit = [this](const std::vector<std::int64_t>& users) { profiles_changed(users); };
  options.cooldown.clock = &clock_;
  options.prompt_engines = {{"sfx", &sfx_}, {"music", &music_}};
  options.upstreams = &upstreams_;
  options.on_change = [this](const orders::OrderChange& change) {
    order_events_.changed(change);
    if (change.subject == orders::OrderChange::Subject::item) speech_waiters_.notify(change.order_id);
  };
  // The pool woke its own workers; the message is for the other instances (Redis is reached from
  // the blocking pool, whose threads hold the connections).
  options.on_requeued = [this] { work_queued(); };
  options.side_jobs.push_back([this](db::Db& db) { return clone_job_.run_once(db); });
  return options;
}

void App::work_queued() {
  workers_.wake();
  work_announces_.request();
}

void App::announce_work(cache::Redis& redis) {
  // After a failed announce the next ones rest a while: with Redis stalled each would hold a
  // pool thread for its timeouts, and other instances find the work on their workers' next timed
  // wake-up anyway.
  const auto now = clock_.now().time_since_epoch().count();
  if (now < announce_resting_until_.load(std::memory_order_relaxed)) return;
  // One announce at a time: it wakes every other instance, and more at once would only be more
  // pool threads waiting on a stalled Redis.
  if (announcing_.exchange(true, std::memory_order_acq_rel)) return;
  try {
    redis.command({"PUBLISH", queue_channel(config_), "1"});
  } catch (const std::exception& e) {
    log::warn("could not announce queued work", {{"error", e.what()}});
    const auto rest = std::chrono::duration_cast<TimePoint::duration>(kAnnounceRest).count();
    announce_resting_until_.store(clock_.now().time_since_epoch().count() + rest, std::memory_order_relaxed);
  }
  announcing_.store(false, std::memory_order_release);
}

void App::profiles_changed(const std::vector<std::int64_t>& users) {
  for (const auto user : users) profiles_.invalidate(UserId{user});
  {
    std::lock_guard lock(profile_notices_mutex_);
    // After a failed announce the next ones rest a while, as queued-work announces do; the
    // other instances' entries end within the profile cache TTL meanwhile.
    if (clock_.now().time_since_epoch().count() < profile_notices_resting_until_) return;
    // Bounded: past it the others rely on the TTL too.
    if (profile_notices_.size() + users.size() > kMaxProfileNotices) return;
    profile_notices_.insert(users.begin(), users.end());
  }
  profile_announces_.request();
}

void App::start_profile_announcer() {
  {
    std::lock_guard lock(profile_notices_mutex_);
    if (profile_announcer_ || profile_notices_.empty()) return;  // the one on its way takes these too
    profile_announcer_ = true;
  }
  blocking_.submit([this](db::Resources& r) { announce_profiles(r.redis); });
}

// One announcer at a time, on a pool thread (they hold the Redis connections): it takes what
// has gathered until nothing is left, so a burst of commits costs one job.
namespace {
constexpr std::string_view kPublishEach =
    "for _, message in ipairs(ARGV) do redis.call('PUBLISH', KEYS[1], message) end return #ARGV";
}  // namespace

void App::announce_profiles(cache::Redis& redis) {
  const auto channel = invalidation_channel(config_.redis_prefix);
  for (;;) {
    std::vector<std::int64_t> batch;
    {
      std::lock_guard lock(profile_notices_mutex_);
      if (profile_notices_.empty()) {
        profile_announcer_ = false;
        return;
      }
      batch.assign(profile_notices_.begin(), profile_notices_.end());
      profile_notices_.clear();
    }
    try {
      // One round trip for the batch: a script publishes each signed message in turn.
      std::vector<std::string> messages;
      messages.reserve(batch.size());
      for (const auto user : batch) messages.push_back(invalidations_.sign(format_invalidation(ProfileOf{UserId{user}})));
      redis.eval(kPublishEach, {channel}, messages);
    } catch (const std::exception& e) {
      log::warn("could not announce changed profiles", {{"error", e.what()}});
      std::lock_guard lock(profile_notices_mutex_);
      const auto rest = std::chrono::duration_cast<TimePoint::duration>(kAnnounceRest).count();
      profile_notices_resting_until_ = clock_.now().time_since_epoch().count() + rest;
      profile_notices_.clear();
      profile_announcer_ = false;
      return;
    }
  }
}

void App::on_fanout(std::string_view channel, std::string_view payload) {
  if (channel == realtime_channel(config_)) {
    hub_.on_fanout(payload);
  } else if (channel == queue_channel(config_)) {
    workers_.wake();
  } else if (channel == ladder_.channel()) {
    // A forged or unsigned ban is counted by the ladder (mediagen_ban_events_unsigned_total).
    if (auto event = ladder_.read_event(payload)) {
      bans_.prune(clock_.now());
      bans_.put(event->first, event->second);
    }
  } else if (channel == catalog::invalidation_channel(config_.redis_prefix)) {
    catalogue_.invalidate();
  } else if (channel == invalidation_channel(config_.redis_prefix)) {
    on_key_invalidation(payload);
  }
}

void App::on_key_invalidation(std::string_view payload) {
  const auto message = invalidations_.verify(payload);
  if (!message) {
    const auto n = invalidations_unsigned_.fetch_add(1, std::memory_order_relaxed);
    if (n % 1000 == 0) log::warn("dropped a key invalidation without a valid signature", {{"dropped", static_cast<std::int64_t>(n + 1)}});
    return;
  }
  const auto what = parse_invalidation(*message);
  if (!what) {
    log::warn("dropped a malformed key invalidation");
    return;
  }
  if (const auto* d = std::get_if<crypto::Sha256Digest>(&*what)) {
    keys_.invalidate_key(*d);
    hub_.key_changed(*d);
  } else if (const auto* p = std::get_if<ProfileOf>(&*what)) {
    profiles_.invalidate(p->user);
  } else {
    keys_.invalidate_user(std::get<UserId>(*what));
    hub_.user_changed(std::get<UserId>(*what));
  }
}

// After a reconnect the bans are reloaded and the key and profile caches and the AI catalogue emptied:
// messages may have been missed meanwhile.
void App::on_fanout_connected() {
  if (reconnected_) {
    keys_.invalidate_all();
    profiles_.invalidate_all();
  }
  catalogue_.invalidate();
  reconnected_ = true;
  blocking_.submit([this](db::Resources& r) {
    try {
      bans_.replace_all(ladder_.load_active(r.redis, clock_.now()));
    } catch (const std::exception& e) {
      log::warn("could not load active bans", {{"error", e.what()}});
    }
    bans_loaded_ = true;
  });
}

}  // namespace mediagen::app
