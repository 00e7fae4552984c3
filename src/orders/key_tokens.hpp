#pragma once
// The key's token limits (spec 8.1, 8.2) for an operation that bills tokens: the windows in
// Redis, then the key's pool in the operation's transaction. What the windows took is given
// back unless the operation keeps it (its transaction committed), so a refused or rolled-back
// operation counts nothing.
#include <cstdint>
#include <optional>

#include "mediagen/cache/token_window.hpp"
#include "mediagen/db/db.hpp"
#include "mediagen/orders/orders.hpp"

namespace mediagen::orders {

class KeyTokens {
 public:
  KeyTokens(cache::Redis& redis, const Caller& caller);
  KeyTokens(const KeyTokens&) = delete;
  KeyTokens& operator=(const KeyTokens&) = delete;
  ~KeyTokens();

  // A refusal, 429 token_quota_exceeded (a window, or the pool with window "quota"), or nothing.
  // Safe to call again when the transaction is retried: the windows are counted once.
  [[nodiscard]] std::optional<ApiError> take(db::Db& db, db::Tx& tx, std::int64_t tokens);
  // The operation committed: what the windows counted stays counted.
  void keep() noexcept { kept_ = true; }

 private:
  cache::Redis& redis_;
  const Caller& caller_;
  cache::TokenWindows windows_;
  std::int64_t counted_ = 0;
  bool windows_checked_ = false;
  TimePoint at_{};
  bool kept_ = false;
};

}  // namespace mediagen::orders
