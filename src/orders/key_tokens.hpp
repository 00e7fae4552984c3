#pragma once
// The key's token limits (spec 8.1, 8.2) for an operation that bills tokens: the windows, then
// the key's pool, both in the operation's transaction, so a refused or rolled-back operation
// counts nothing and no other store is asked while its locks are held.
#include <cstdint>
#include <optional>

#include "mediagen/db/db.hpp"
#include "mediagen/orders/orders.hpp"
#include "mediagen/orders/token_windows.hpp"

namespace mediagen::orders {

class KeyTokens {
 public:
  explicit KeyTokens(const Caller& caller);

  // A refusal, 429 token_quota_exceeded (a window, or the pool with window "quota"), or nothing.
  [[nodiscard]] std::optional<ApiError> take(db::Db& db, db::Tx& tx, std::int64_t tokens) const;

 private:
  const Caller& caller_;
  TokenWindows windows_;
};

}  // namespace mediagen::orders
