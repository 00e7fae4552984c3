#pragma once
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
