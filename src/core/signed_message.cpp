#include "mediagen/core/signed_message.hpp"

#include "mediagen/core/crypto.hpp"
#include "mediagen/core/hex.hpp"

namespace mediagen {

namespace {
constexpr std::size_t kSignatureChars = 64;
}

std::string MessageSigner::sign(std::string_view message) const {
  std::string out = crypto::hmac_sha256_hex(key_, message);
  out.reserve(kSignatureChars + 1 + message.size());
  out.push_back(' ');
  out.append(message);
  return out;
}

std::optional<std::string_view> MessageSigner::verify(std::string_view payload) const {
  if (payload.size() > max_bytes_ || payload.size() <= kSignatureChars || payload[kSignatureChars] != ' ') {
    return std::nullopt;
  }
  const std::string_view given = payload.substr(0, kSignatureChars);
  // One spelling only (what sign writes), so a message has exactly one valid payload.
  if (!is_lower_hex(given)) return std::nullopt;
  const std::string_view message = payload.substr(kSignatureChars + 1);
  if (!crypto::constant_time_equal(given, crypto::hmac_sha256_hex(key_, message))) return std::nullopt;
  return message;
}

std::string derive_key(std::string_view secret, std::string_view label) { return crypto::hmac_sha256_hex(secret, label); }

}  // namespace mediagen
