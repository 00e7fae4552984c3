#pragma once
// Open realtime sockets per client address (HubOptions::max_connections_per_address), so one
// address cannot take every socket of the instance. A socket holds its Slot for its whole life;
// the count drops when the Slot goes with the socket.
#include <atomic>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <mutex>
#include <string>
#include <unordered_map>

namespace mediagen::realtime {

class AddressSlots : public std::enable_shared_from_this<AddressSlots> {
 public:
  class Slot {
   public:
    Slot(std::shared_ptr<AddressSlots> owner, std::string ip) : owner_(std::move(owner)), ip_(std::move(ip)) {}
    ~Slot() { owner_->release(ip_); }
    Slot(const Slot&) = delete;
    Slot& operator=(const Slot&) = delete;

   private:
    std::shared_ptr<AddressSlots> owner_;
    std::string ip_;
  };

  explicit AddressSlots(std::size_t per_address) : per_address_(per_address) {}

  // One more socket for `ip`, or null (counted in refused()) when the address holds its cap.
  std::unique_ptr<Slot> take(const std::string& ip);
  std::uint64_t refused() const { return refused_.load(std::memory_order_relaxed); }

 private:
  void release(const std::string& ip);

  const std::size_t per_address_;
  std::mutex mutex_;
  std::unordered_map<std::string, std::size_t> open_;  // addresses with at least one socket
  std::atomic<std::uint64_t> refused_{0};
};

}  // namespace mediagen::realtime
