#pragma once
// What all the uploads being read at one moment may hold in memory together, and how many of them
// one key may have at once. A multipart body takes budget as its bytes arrive (never its declared
// size up front, which a slow client could sit on for hours) and gives it back when its request
// ends; a piece that does not fit now ends that upload with 503 and Retry-After rather than
// queueing it. The per-key cap is checked before a byte of the body is read.
#include <atomic>
#include <cstddef>
#include <mutex>
#include <optional>
#include <unordered_map>

#include "mediagen/core/ids.hpp"

namespace mediagen::http {

class UploadBudget {
 public:
  explicit UploadBudget(std::size_t bytes) : capacity_(bytes) {}
  UploadBudget(const UploadBudget&) = delete;
  UploadBudget& operator=(const UploadBudget&) = delete;

  // The bytes one upload holds; grows with each piece, all given back when it ends.
  class Lease {
   public:
    explicit Lease(UploadBudget& budget) : budget_(&budget) {}
    Lease(Lease&& other) noexcept : budget_(other.budget_), bytes_(other.bytes_) { other.budget_ = nullptr; }
    Lease& operator=(Lease&& other) noexcept {
      if (this != &other) {
        give_back();
        budget_ = other.budget_;
        bytes_ = other.bytes_;
        other.budget_ = nullptr;
      }
      return *this;
    }
    ~Lease() { give_back(); }

    // Takes `bytes` more; false (and nothing taken) when they do not fit beside what is taken.
    bool grow(std::size_t bytes) {
      if (!budget_ || !budget_->reserve(bytes)) return false;
      bytes_ += bytes;
      return true;
    }
    std::size_t bytes() const noexcept { return bytes_; }

   private:
    void give_back() noexcept {
      if (budget_) budget_->used_.fetch_sub(bytes_, std::memory_order_relaxed);
      budget_ = nullptr;
    }
    UploadBudget* budget_;
    std::size_t bytes_ = 0;
  };

  // An empty lease, to grow as the body arrives.
  Lease lease() { return Lease(*this); }
  // A lease of `bytes` at once; nullopt when they do not fit.
  std::optional<Lease> take(std::size_t bytes) {
    Lease l(*this);
    if (!l.grow(bytes)) return std::nullopt;
    return l;
  }

  std::size_t in_use() const noexcept { return used_.load(std::memory_order_relaxed); }
  std::size_t capacity() const noexcept { return capacity_; }

 private:
  bool reserve(std::size_t bytes) {
    std::size_t used = used_.load(std::memory_order_relaxed);
    do {
      if (bytes > capacity_ || used > capacity_ - bytes) return false;
    } while (!used_.compare_exchange_weak(used, used + bytes, std::memory_order_relaxed));
    return true;
  }

  std::size_t capacity_;
  std::atomic<std::size_t> used_{0};
};

// Uploads being read per API key: a key past its cap is refused before its body is read, so a
// few keys cannot take every upload slot of the instance with bodies that come slowly.
class UploadSlots {
 public:
  explicit UploadSlots(std::size_t per_key) : per_key_(per_key) {}
  UploadSlots(const UploadSlots&) = delete;
  UploadSlots& operator=(const UploadSlots&) = delete;

  class Slot {
   public:
    Slot(UploadSlots& slots, ApiKeyId key) : slots_(&slots), key_(key) {}
    Slot(Slot&& other) noexcept : slots_(other.slots_), key_(other.key_) { other.slots_ = nullptr; }
    Slot& operator=(Slot&& other) noexcept {
      if (this != &other) {
        release();
        slots_ = other.slots_;
        key_ = other.key_;
        other.slots_ = nullptr;
      }
      return *this;
    }
    ~Slot() { release(); }

   private:
    void release() noexcept {
      if (slots_) slots_->leave(key_);
      slots_ = nullptr;
    }
    UploadSlots* slots_;
    ApiKeyId key_;
  };

  // nullopt when the key already has per_key() uploads being read.
  std::optional<Slot> enter(ApiKeyId key) {
    std::lock_guard lock(mutex_);
    std::size_t& n = open_[key];
    if (n >= per_key_) {
      if (n == 0) open_.erase(key);
      return std::nullopt;
    }
    ++n;
    ++total_;
    return std::optional<Slot>(std::in_place, *this, key);
  }

  std::size_t per_key() const noexcept { return per_key_; }
  // Uploads being read now, all keys together.
  std::size_t open() const {
    std::lock_guard lock(mutex_);
    return total_;
  }

 private:
  void leave(ApiKeyId key) noexcept {
    std::lock_guard lock(mutex_);
    auto it = open_.find(key);
    if (it == open_.end()) return;
    if (--it->second == 0) open_.erase(it);
    --total_;
  }

  std::size_t per_key_;
  mutable std::mutex mutex_;
  std::unordered_map<ApiKeyId, std::size_t> open_;
  std::size_t total_ = 0;
};

}  // namespace mediagen::http
