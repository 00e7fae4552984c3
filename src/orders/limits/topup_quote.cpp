#include "mediagen/orders/limits.hpp"

#include <charconv>
#include <span>

#include "mediagen/core/crypto.hpp"
#include "mediagen/core/hex.hpp"

namespace mediagen::orders {
namespace {

constexpr std::string_view kPrefix = "q1.";
constexpr std::size_t kNonceHex = 32;
constexpr std::size_t kMacHex = 64;

bool lower_hex(std::string_view s, std::size_t length) noexcept { return s.size() == length && is_lower_hex(s); }

// Up to 12 decimal digits (far past any expiry), no sign, no leading zero.
std::optional<std::int64_t> unix_seconds(std::string_view s) noexcept {
  if (s.empty() || s.size() > 12 || s.front() == '0') return std::nullopt;
  for (const char c : s) {
    if (c < '0' || c > '9') return std::nullopt;  // from_chars would take a sign
  }
  std::int64_t value = 0;
  const auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), value);
  if (ec != std::errc{} || end != s.data() + s.size()) return std::nullopt;
  return value;
}

}  // namespace

std::optional<QuoteToken> parse_quote_token(std::string_view token) noexcept {
  if (!token.starts_with(kPrefix)) return std::nullopt;
  token.remove_prefix(kPrefix.size());
  const auto first = token.find('.');
  if (first == std::string_view::npos) return std::nullopt;
  const auto second = token.find('.', first + 1);
  if (second == std::string_view::npos) return std::nullopt;
  const auto expires = unix_seconds(token.substr(0, first));
  const std::string_view nonce = token.substr(first + 1, second - first - 1);
  const std::string_view mac = token.substr(second + 1);
  if (!expires || !lower_hex(nonce, kNonceHex) || !lower_hex(mac, kMacHex)) return std::nullopt;
  return QuoteToken{.expires_unix = *expires, .nonce = nonce, .mac = mac};
}

QuoteSigner::QuoteSigner(std::string_view secret)
    : key_(crypto::hmac_sha256_hex(secret, "mediagen payg top-up quotes")) {}

std::string QuoteSigner::mac(std::int64_t expires_unix, std::string_view nonce, const QuoteTerms& terms) const {
  std::string data = "q1|" + std::to_string(expires_unix) + "|" + std::string(nonce) + "|" +
                     std::to_string(terms.user.value) + "|" + std::to_string(terms.amount_minor) + "|";
  data += terms.fingerprint;
  return crypto::hmac_sha256_hex(key_, data);
}

IssuedQuote QuoteSigner::issue(const QuoteTerms& terms, TimePoint now) const {
  // Whole seconds, rounded down: the quote never lives longer than kLifetime.
  const auto expires = std::chrono::floor<Seconds>(now + kLifetime);
  const std::int64_t expires_unix = expires.time_since_epoch().count();
  const std::string random = crypto::random_bytes(kNonceHex / 2);
  const std::string nonce =
      crypto::to_hex(std::span(reinterpret_cast<const std::uint8_t*>(random.data()), random.size()));
  return {.token = std::string(kPrefix) + std::to_string(expires_unix) + "." + nonce + "." +
                   mac(expires_unix, nonce, terms),
          .expires_at = TimePoint{expires}};
}

std::optional<std::string> QuoteSigner::accept(std::string_view token, const QuoteTerms& terms, TimePoint now) const {
  const auto parsed = parse_quote_token(token);
  if (!parsed) return std::nullopt;
  if (!crypto::constant_time_equal(mac(parsed->expires_unix, parsed->nonce, terms), parsed->mac)) return std::nullopt;
  if (TimePoint{Seconds{parsed->expires_unix}} <= now) return std::nullopt;
  return std::string(parsed->nonce);
}

}  // namespace mediagen::orders
