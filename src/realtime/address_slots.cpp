#include "address_slots.hpp"

namespace mediagen::realtime {

std::unique_ptr<AddressSlots::Slot> AddressSlots::take(const std::string& ip) {
  {
    std::lock_guard lock(mutex_);
    auto& open = open_[ip];
    if (open >= per_address_) {
      refused_.fetch_add(1, std::memory_order_relaxed);
      return nullptr;
    }
    ++open;
  }
  return std::make_unique<Slot>(shared_from_this(), ip);
}

void AddressSlots::release(const std::string& ip) {
  std::lock_guard lock(mutex_);
  auto it = open_.find(ip);
  if (it == open_.end()) return;
  if (--it->second == 0) open_.erase(it);
}

}  // namespace mediagen::realtime
