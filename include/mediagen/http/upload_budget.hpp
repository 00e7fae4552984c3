#pragma once
// What all the uploads being read at one moment may hold in memory together. Each multipart body
// takes its declared size (the route's cap when it declares none) before a byte is read and gives
// it back when its request ends; a body that does not fit now is refused with 503 and Retry-After
// rather than queued, so many slow uploads at once cannot exhaust the process.
#include <atomic>
#include <cstddef>
#include <optional>

namespace mediagen::http {

class UploadBudget {
 public:
  explicit UploadBudget(std::size_t bytes) : capacity_(bytes) {}
  UploadBudget(const UploadBudget&) = delete;
  UploadBudget& operator=(const UploadBudget&) = delete;

  class Lease {
   public:
    Lease(UploadBudget& budget, std::size_t bytes) : budget_(&budget), bytes_(bytes) {}
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

   private:
    void give_back() noexcept {
      if (budget_) budget_->used_.fetch_sub(bytes_, std::memory_order_relaxed);
      budget_ = nullptr;
    }
    UploadBudget* budget_;
    std::size_t bytes_;
  };

  // nullopt when `bytes` does not fit beside what is already taken.
  std::optional<Lease> take(std::size_t bytes) {
    std::size_t used = used_.load(std::memory_order_relaxed);
    do {
      if (bytes > capacity_ || used > capacity_ - bytes) return std::nullopt;
    } while (!used_.compare_exchange_weak(used, used + bytes, std::memory_order_relaxed));
    return Lease(*this, bytes);
  }

  std::size_t in_use() const noexcept { return used_.load(std::memory_order_relaxed); }
  std::size_t capacity() const noexcept { return capacity_; }

 private:
  std::size_t capacity_;
  std::atomic<std::size_t> used_{0};
};

}  // namespace mediagen::http
