#pragma once
// Token windows of a key (spec 8.1, 8.2): generation volume per minute, hour, day and calendar
// month. They are counted in PostgreSQL, in the transaction of the operation that bills the
// tokens (key_window_store): exact across instances, undone by a rollback, and untouched by a
// Redis outage. Windows are fixed and aligned to the UTC calendar, so a refusal can say when its
// window ends.
#include <cstdint>
#include <optional>
#include <string_view>

#include "mediagen/core/api_error.hpp"
#include "mediagen/core/clock.hpp"
#include "mediagen/core/ids.hpp"
#include "mediagen/db/db.hpp"

namespace mediagen::orders {

// Enumerators equal the wire value of "window" in the 429 body.
enum class TokenWindow { per_minute, per_hour, per_day, per_month };
std::string_view to_string(TokenWindow window);

// The end of the window that holds `at`: the next whole minute, hour or day, or the first day
// of the next month, 00:00 UTC.
TimePoint window_end(TokenWindow window, TimePoint at);

// Empty: no limit in that window.
struct TokenWindows {
  std::optional<std::int64_t> per_minute;
  std::optional<std::int64_t> per_hour;
  std::optional<std::int64_t> per_day;
  std::optional<std::int64_t> per_month;
  bool any() const { return per_minute || per_hour || per_day || per_month; }
};

struct TokenRefusal {
  TokenWindow window = TokenWindow::per_minute;  // the first full one, shortest first
  std::int64_t limit = 0;
  std::int64_t used = 0;  // in the window before this request
  std::int64_t requested = 0;
  TimePoint reset_at;             // the window's end
  std::int64_t retry_after = 0;   // whole seconds until reset_at, at least 1
};

// The 429 token_quota_exceeded answer for a refused window, with its Retry-After header.
ApiError token_quota_exceeded(const TokenRefusal& refusal);

// In the operation's transaction (key_window_store.cpp): adds `tokens` to every limited window of
// the key at `now` unless one would go over its limit; then nothing is added and the first such
// window (shortest first) is named. Zero tokens, or a key without windows, pass without a
// statement. The windows' rows stay locked until the transaction ends, so concurrent operations
// of one key are counted one after the other and can never overshoot a limit together.
std::optional<TokenRefusal> take_window_tokens(db::Db& db, db::Tx& tx, ApiKeyId key, const TokenWindows& windows,
                                               std::int64_t tokens, TimePoint now);

}  // namespace mediagen::orders

// The policy cooldown (spec 8.1 policy_cooldown_active): after kPolicyStreak consecutive orders
// blocked by the content policy, the user may not create orders (POST /orders, order retry) for
// ladder[step], and the step advances (300 s, 600 s, 900 s by default, staying at the last). An
// order completed with no policy-flagged chunk starts the count and the ladder again.
//
// The count moves in the transaction that settles the order (work_settle_store.cpp): an order's
// first policy_flagged chunk counts it once; its completion without one resets. Order creation
// reads blocked_until inside its own transaction, before the token pool and any money.
#include <chrono>
#include <cstdint>
#include <optional>
#include <vector>

#include "mediagen/core/api_error.hpp"
#include "mediagen/core/clock.hpp"

namespace mediagen::orders {

// Consecutive policy-blocked orders that start a cooldown (spec 8.1: five).
inline constexpr int kPolicyStreak = 5;

struct PolicyCooldown {
  // MEDIAGEN_POLICY_COOLDOWN_SECONDS: the n-th cooldown lasts ladder[min(n - 1, last)]. Empty: the
  // cooldown is off (nothing is counted; a clean completion still clears an old streak).
  std::vector<Seconds> ladder{Seconds{300}, Seconds{600}, Seconds{900}};
  // Where the time comes from; null: the system clock. Not owned.
  const Clock* clock = nullptr;

  TimePoint now() const { return clock ? clock->now() : std::chrono::system_clock::now(); }
  // How long the cooldown given after `step` earlier ones lasts.
  Seconds duration(std::int64_t step) const;
};

// 429 policy_cooldown_active while `blocked_until` is after `now`: retry_after is the wait in
// whole seconds rounded up (at least 1), retry_at blocked_until rounded up to the second (so at
// either, creation is allowed again), Retry-After the same seconds. Nothing otherwise.
std::optional<ApiError> policy_cooldown_refusal(std::optional<TimePoint> blocked_until, TimePoint now);

}  // namespace mediagen::orders

// The explicit-confirmation fallback of spec 7.1 (`admin billing confirm-mode on`): an order
// that would take money from the balance is first answered 402 payg_topup_required with a quote
// of that amount; the client confirms by sending the quote's token back with
// `confirm_payg_topup: true`. The token is signed, not stored: a quote costs nothing until it is
// used, and a token is good for one order only (its nonce is recorded with the order it paid for).
//
// Token: "q1.<expires, unix seconds>.<nonce, 32 hex>.<HMAC-SHA256, 64 hex>", the HMAC over the
// expiry, the nonce, the user, the amount in minor units and the fingerprint of the request. A
// token quoted for another user, another request or another amount, or one past its expiry,
// does not verify (409 quote_mismatch).
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "mediagen/core/clock.hpp"
#include "mediagen/core/ids.hpp"

namespace mediagen::orders {

// What a request says of a top-up (confirm_payg_topup, quote_token): read always, used only in
// the explicit-confirmation mode.
struct TopupConfirmation {
  bool confirmed = false;
  std::optional<std::string> quote_token;
};

// What a quote binds: who, how much, and for which request (a hash of what the order asks for).
struct QuoteTerms {
  UserId user;
  std::int64_t amount_minor = 0;
  std::string_view fingerprint;
};

struct IssuedQuote {
  std::string token;
  TimePoint expires_at;
};

// A token's parts as written; nothing about it is verified yet.
struct QuoteToken {
  std::int64_t expires_unix = 0;
  std::string_view nonce;  // 32 lower-case hex digits
  std::string_view mac;    // 64 lower-case hex digits
};

// The exact shape above, or nullopt; never throws.
std::optional<QuoteToken> parse_quote_token(std::string_view token) noexcept;

class QuoteSigner {
 public:
  // How long a quote may be confirmed.
  static constexpr Seconds kLifetime{300};

  // `secret`: MEDIAGEN_SECRET (instances sharing it accept each other's quotes).
  explicit QuoteSigner(std::string_view secret);

  IssuedQuote issue(const QuoteTerms& terms, TimePoint now) const;
  // The nonce of `token` when it quotes exactly `terms` and has not expired at `now`.
  std::optional<std::string> accept(std::string_view token, const QuoteTerms& terms, TimePoint now) const;

 private:
  std::string mac(std::int64_t expires_unix, std::string_view nonce, const QuoteTerms& terms) const;

  std::string key_;
};

}  // namespace mediagen::orders

// The key's token limits (spec 8.1, 8.2) for an operation that bills tokens: the windows, then
// the key's pool, both in the operation's transaction, so a refused or rolled-back operation
// counts nothing and no other store is asked while its locks are held.
#include <cstdint>
#include <optional>

#include "mediagen/db/db.hpp"
#include "mediagen/orders/order.hpp"

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

// How settling an order moves the user's policy streak (policy_cooldown.hpp), inside the settling
// transaction, after the order row and the ledger: the last lock it takes is the user's
// cooldown row.
#include <string_view>

#include "mediagen/core/ids.hpp"
#include "mediagen/db/db.hpp"

namespace mediagen::orders {

// A chunk of the order was just policy_flagged: the order counts once (its first flagged chunk);
// the kPolicyStreak-th consecutive one starts the next cooldown of the ladder.
void note_policy_block(db::Db& db, db::Tx& tx, UserId user, std::string_view order_id, const PolicyCooldown& cooldown);

// The order completed for the first time and none of its chunks was flagged.
void note_clean_completion(db::Db& db, db::Tx& tx, UserId user);

}  // namespace mediagen::orders
