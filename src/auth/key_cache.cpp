#include "mediagen/auth/key_cache.hpp"

#include <algorithm>

namespace mediagen::auth {

std::optional<std::shared_ptr<const Principal>> KeyCache::find(const crypto::Sha256Digest& digest) const {
  if (!enabled()) return std::nullopt;
  std::lock_guard lock(mutex_);
  auto it = entries_.find(digest);
  if (it == entries_.end() || it->second.expires <= clock_.now()) return std::nullopt;
  const auto& p = it->second.principal;
  // The map already matched the digest; compare again in constant time so the decision to
  // accept a key never rests on a comparison that exits early.
  if (p && !crypto::constant_time_equal(p->key_hash, digest)) return std::nullopt;
  return p;
}

void KeyCache::put(const crypto::Sha256Digest& digest, std::shared_ptr<const Principal> principal) {
  if (!enabled()) return;
  const TimePoint now = clock_.now();
  std::lock_guard lock(mutex_);
  if (entries_.size() >= max_entries_) {
    std::erase_if(entries_, [&](const auto& kv) { return kv.second.expires <= now || !kv.second.principal; });
    if (entries_.size() >= max_entries_) entries_.clear();
  }
  entries_[digest] = Entry{std::move(principal), now + ttl_};
}

void KeyCache::invalidate_key(const crypto::Sha256Digest& digest) {
  std::lock_guard lock(mutex_);
  entries_.erase(digest);
}

void KeyCache::invalidate_user(UserId user) {
  std::lock_guard lock(mutex_);
  std::erase_if(entries_, [&](const auto& kv) { return kv.second.principal && kv.second.principal->user_id == user; });
}

void KeyCache::invalidate_all() {
  std::lock_guard lock(mutex_);
  entries_.clear();
}

}  // namespace mediagen::auth
