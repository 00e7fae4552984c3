#include "mediagen/storage/link_signer.hpp"

#include <openssl/evp.h>
#include <openssl/hmac.h>

#include <stdexcept>

#include "mediagen/core/crypto.hpp"

namespace mediagen::storage {
namespace {

// Length-prefixed and versioned, so no two claim sets share a message whatever the key holds.
std::string message_of(const LinkClaims& claims) {
  std::string m = "mediagen-link-v1\n";
  m += std::to_string(claims.key.size());
  m += ':';
  m += claims.key;
  m += '\n';
  m += std::to_string(claims.expires_at);
  m += '\n';
  m += claims.download ? '1' : '0';
  return m;
}

}  // namespace

LinkSigner::LinkSigner(std::string secret) : secret_(std::move(secret)) {
  if (secret_.empty()) throw std::invalid_argument("the link-signing secret is empty");
}

std::string LinkSigner::sign(const LinkClaims& claims) const {
  const std::string message = message_of(claims);
  unsigned char mac[EVP_MAX_MD_SIZE];
  unsigned int length = 0;
  if (!HMAC(EVP_sha256(), secret_.data(), static_cast<int>(secret_.size()),
            reinterpret_cast<const unsigned char*>(message.data()), message.size(), mac, &length)) {
    throw std::runtime_error("HMAC-SHA256 failed");
  }
  return crypto::base64url(std::string_view(reinterpret_cast<const char*>(mac), length));
}

// The signature is compared as text: a different encoding of the same bytes (the unused low
// bits of the last base64 character) is a different signature, so every flipped bit fails.
bool LinkSigner::verify(const LinkClaims& claims, std::string_view signature) const {
  return crypto::constant_time_equal(sign(claims), signature);
}

}  // namespace mediagen::storage
