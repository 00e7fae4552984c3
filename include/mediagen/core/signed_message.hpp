#pragma once
// Messages instances pass each other through Redis (realtime fan-out, bans, key invalidations)
// travel as
//   "<HMAC-SHA256 of the rest, 64 lower-case hex digits> <message>"
// under a key every instance derives from the shared secret, one key per use (derive_key), so a
// message signed for one channel means nothing on another. Whoever can PUBLISH on Redis but
// does not hold the secret cannot make an instance act.
#include <cstddef>
#include <optional>
#include <string>
#include <string_view>

namespace mediagen {

class MessageSigner {
 public:
  // key: a derived key (derive_key), shared by every instance. A payload above max_bytes is not
  // read at all.
  MessageSigner(std::string key, std::size_t max_bytes) : key_(std::move(key)), max_bytes_(max_bytes) {}

  std::string sign(std::string_view message) const;
  // The message when the signature is present and right (compared in constant time) and the
  // payload within max_bytes; nullopt otherwise. Views into payload.
  std::optional<std::string_view> verify(std::string_view payload) const;

 private:
  std::string key_;
  std::size_t max_bytes_;
};

// HMAC-SHA256(secret, label), in hex: the key of one use of the secret.
std::string derive_key(std::string_view secret, std::string_view label);

}  // namespace mediagen
