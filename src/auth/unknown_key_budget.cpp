#include "mediagen/auth/unknown_key_budget.hpp"

namespace mediagen::auth {

namespace {
std::int64_t unix_seconds(TimePoint t) {
  return std::chrono::duration_cast<std::chrono::seconds>(t.time_since_epoch()).count();
}
}  // namespace

void UnknownKeyBudget::roll(std::int64_t minute) {
  if (minute == minute_) return;
  // Only the addresses that failed within one minute are held: at most one entry per lookup.
  failures_.clear();
  minute_ = minute;
}

std::int64_t UnknownKeyBudget::refusal(std::string_view ip, const crypto::Sha256Digest& digest, TimePoint now) {
  if (per_minute_ <= 0) return 0;
  const auto s = unix_seconds(now);
  std::lock_guard lock(mutex_);
  roll(s / 60);
  auto it = failures_.find(std::string(ip));
  if (it == failures_.end() || it->second < per_minute_ || vouched_.count(digest) != 0) return 0;
  refused_.fetch_add(1, std::memory_order_relaxed);
  return 60 - s % 60;
}

void UnknownKeyBudget::not_found(std::string_view ip, TimePoint now) {
  if (per_minute_ <= 0) return;
  std::lock_guard lock(mutex_);
  roll(unix_seconds(now) / 60);
  ++failures_[std::string(ip)];
}

void UnknownKeyBudget::found(const crypto::Sha256Digest& digest) {
  if (per_minute_ <= 0) return;
  std::lock_guard lock(mutex_);
  if (vouched_.size() >= vouched_limit_) vouched_.clear();
  vouched_.insert(digest);
}

}  // namespace mediagen::auth
