#include "invalidation.hpp"

#include <charconv>

namespace mediagen::app {

MessageSigner invalidation_signer(std::string_view secret) {
  return MessageSigner(derive_key(secret, kInvalidationKeyLabel), kMaxInvalidationBytes);
}

std::string format_invalidation(const Invalidation& what) {
  if (const auto* d = std::get_if<crypto::Sha256Digest>(&what)) return "key " + crypto::to_hex(*d);
  if (const auto* p = std::get_if<ProfileOf>(&what)) return "profile " + std::to_string(p->user.value);
  return "user " + std::to_string(std::get<UserId>(what).value);
}

namespace {

// A user id as format_invalidation writes it: 1 to 19 digits, no sign, no leading zero, > 0.
std::optional<UserId> parse_user_id(std::string_view digits) {
  if (digits.empty() || digits.size() > 20 || digits[0] == '0') return std::nullopt;
  std::int64_t id = 0;
  auto [p, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), id);
  if (ec != std::errc{} || p != digits.data() + digits.size() || id <= 0) return std::nullopt;
  return UserId{id};
}

}  // namespace

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
  if (message.substr(0, 5) == "user ") {
    if (auto id = parse_user_id(message.substr(5))) return *id;
    return std::nullopt;
  }
  if (message.substr(0, 8) == "profile ") {
    if (auto id = parse_user_id(message.substr(8))) return ProfileOf{*id};
  }
  return std::nullopt;
}

}  // namespace mediagen::app
