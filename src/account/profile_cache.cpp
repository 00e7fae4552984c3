#include "mediagen/account/profile_cache.hpp"

#include <algorithm>

namespace mediagen::account {

std::shared_ptr<const Profile> ProfileCache::find(UserId id) const {
  if (!enabled()) return nullptr;
  const auto now = clock_.now();
  std::lock_guard lock(mutex_);
  auto it = entries_.find(id.value);
  if (it == entries_.end()) return nullptr;
  if (it->second.expires <= now) {
    entries_.erase(it);
    return nullptr;
  }
  return it->second.profile;
}

ProfileCache::ReadTicket ProfileCache::begin_read() const {
  std::lock_guard lock(mutex_);
  return ReadTicket{generation_};
}

void ProfileCache::put(std::shared_ptr<const Profile> profile, ReadTicket read) {
  if (!enabled() || !profile) return;
  const auto now = clock_.now();
  auto expires = now + std::chrono::duration_cast<TimePoint::duration>(ttl_);
  // The plan shown ends by the clock, with no write to announce it.
  if (profile->plan) expires = std::min(expires, profile->plan->expires_at);
  if (expires <= now) return;
  const std::int64_t id = profile->id.value;
  std::lock_guard lock(mutex_);
  if (read.generation != generation_) return;
  if (entries_.size() >= capacity_ && !entries_.contains(id)) {
    prune(now);
    if (entries_.size() >= capacity_) return;
  }
  entries_.insert_or_assign(id, Entry{std::move(profile), expires});
}

void ProfileCache::prune(TimePoint now) {
  std::erase_if(entries_, [now](const auto& item) { return item.second.expires <= now; });
}

void ProfileCache::invalidate(UserId id) {
  std::lock_guard lock(mutex_);
  ++generation_;
  entries_.erase(id.value);
}

void ProfileCache::invalidate_all() {
  std::lock_guard lock(mutex_);
  ++generation_;
  entries_.clear();
}

std::size_t ProfileCache::size() const {
  std::lock_guard lock(mutex_);
  return entries_.size();
}

}  // namespace mediagen::account
