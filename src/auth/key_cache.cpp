#include "mediagen/auth/key_cache.hpp"

namespace mediagen::auth {

void KeyCache::Lru::erase(List::iterator it) {
  index.erase(it->digest);
  order.erase(it);
}

std::optional<std::shared_ptr<const Principal>> KeyCache::find(const crypto::Sha256Digest& digest) const {
  if (!enabled()) return std::nullopt;
  std::lock_guard lock(mutex_);
  for (Lru* lru : {&known_, &unknown_}) {
    auto it = lru->index.find(digest);
    if (it == lru->index.end()) continue;
    if (it->second->expires <= clock_.now()) {
      lru->erase(it->second);
      return std::nullopt;
    }
    lru->order.splice(lru->order.begin(), lru->order, it->second);
    const auto& p = it->second->principal;
    // The map already matched the digest; compare again in constant time so the decision to
    // accept a key never rests on a comparison that exits early.
    if (p && !crypto::constant_time_equal(p->key_hash, digest)) return std::nullopt;
    return p;
  }
  return std::nullopt;
}

KeyCache::ReadTicket KeyCache::begin_read() const {
  std::lock_guard lock(mutex_);
  return ReadTicket{generation_};
}

void KeyCache::put(const crypto::Sha256Digest& digest, std::shared_ptr<const Principal> principal,
                   ReadTicket read) {
  if (!enabled()) return;
  const TimePoint expires = clock_.now() + ttl_;
  std::lock_guard lock(mutex_);
  // An invalidation since the read began: what was read may be older than it.
  if (read.generation != generation_) return;
  erase_everywhere(digest);  // a key may move between the lists (created, disabled)
  Lru& lru = list_for(principal);
  const std::size_t bound = std::max<std::size_t>(1, principal ? limits_.known : limits_.unknown);
  while (lru.order.size() >= bound) lru.erase(std::prev(lru.order.end()));
  lru.order.push_front(Entry{digest, std::move(principal), expires});
  lru.index.emplace(digest, lru.order.begin());
}

void KeyCache::erase_everywhere(const crypto::Sha256Digest& digest) {
  for (Lru* lru : {&known_, &unknown_}) {
    if (auto it = lru->index.find(digest); it != lru->index.end()) lru->erase(it->second);
  }
}

void KeyCache::invalidate_key(const crypto::Sha256Digest& digest) {
  std::lock_guard lock(mutex_);
  ++generation_;
  erase_everywhere(digest);
}

void KeyCache::invalidate_user(UserId user) {
  std::lock_guard lock(mutex_);
  ++generation_;
  for (auto it = known_.order.begin(); it != known_.order.end();) {
    auto next = std::next(it);
    if (it->principal->user_id == user) known_.erase(it);
    it = next;
  }
}

void KeyCache::invalidate_all() {
  std::lock_guard lock(mutex_);
  ++generation_;
  known_ = {};
  unknown_ = {};
}

std::size_t KeyCache::size() const {
  std::lock_guard lock(mutex_);
  return known_.order.size() + unknown_.order.size();
}

}  // namespace mediagen::auth
