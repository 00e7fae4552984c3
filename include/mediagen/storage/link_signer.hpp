#pragma once
// Signs and checks download links: HMAC-SHA256 over (key, expiry, disposition) with the server
// secret, base64url without padding. Whoever holds a link may fetch that one file, in that
// disposition, until it expires; changing any of the three, or one bit of the signature,
// makes the check fail. Every instance sharing the secret accepts the links of the others.
#include <cstdint>
#include <string>
#include <string_view>

namespace mediagen::storage {

struct LinkClaims {
  std::string_view key;     // a storage key
  std::int64_t expires_at;  // unix seconds; the link works while now < expires_at
  bool download;            // true: Content-Disposition attachment, false: inline
};

class LinkSigner {
 public:
  // The secret must not be empty (throws std::invalid_argument): an empty HMAC key would let
  // anyone mint links.
  explicit LinkSigner(std::string secret);

  // 43 characters of base64url.
  std::string sign(const LinkClaims& claims) const;
  // Compares in constant time; any difference in claims or signature gives false.
  bool verify(const LinkClaims& claims, std::string_view signature) const;

 private:
  std::string secret_;
};

}  // namespace mediagen::storage
