#include "invalidation.hpp"

#include <charconv>

namespace mediagen::app {

MessageSigner invalidation_signer(std::string_view secret) {
  return MessageSigner(derive_key(secret, kInvalidationKeyLabel), kMaxInvalidationBytes);
}

std::string format_invalidation(const Invalidation& what) {
  if (const auto* d = std::get_if<crypto::Sha256Digest>(&what)) return "key " + crypto::to_hex(*d);
  return "user " + std::to_string(std::get<UserId>(what).value);
}

std::optional<Invalidation> parse_invalidation(std::string_view message) {
  if (message.substr(0, 4) == "key " && message.size() == 4 + 64) {
    crypto::Sha256Digest d{};
    for (std::size_t i = 0; i < d.size(); ++i) {
      auto pair = message.substr(4 + 2 * i, 2);
      unsigned v = 0;
      auto [p, ec] = std::from_chars(pair.data(), pair.data() + 2, v, 16);
      if (ec != std::errc{} || p != pair.data() + 2) return std::nullopt;
      d[i] = static_cast<std::uint8_t>(v);
    }
    return d;
  }
  if (message.substr(0, 5) == "user " && message.size() <= 25) {
    std::int64_t id = 0;
    auto digits = message.substr(5);
    auto [p, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), id);
    if (ec != std::errc{} || p != digits.data() + digits.size() || id <= 0) return std::nullopt;
    return UserId{id};
  }
  return std::nullopt;
}

}  // namespace mediagen::app
