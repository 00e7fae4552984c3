#pragma once
// Every message on the Redis fan-out channel (events and grants, fanout_message.hpp) travels as
//   "<HMAC-SHA256 of the rest, 64 lower-case hex digits> <message>"
// under a key all instances derive from MEDIAGEN_SECRET. Whoever can PUBLISH on Redis but does
// not hold the secret cannot push events into a user's channel or grant a socket a key.
#include <cstddef>
#include <optional>
#include <string>
#include <string_view>

namespace mediagen::realtime {

// Far above any event or grant this service publishes; a larger payload is not read at all.
inline constexpr std::size_t kMaxFanoutBytes = 1 << 20;

// The label that makes the fan-out key differ from every other key derived from the same secret.
inline constexpr std::string_view kFanoutKeyLabel = "mediagen realtime fan-out v1";

class FanoutSigner {
 public:
  // key: the derived key (fanout_key below), shared by every instance.
  explicit FanoutSigner(std::string key) : key_(std::move(key)) {}

  std::string sign(std::string_view message) const;
  // The message when the signature is present and right (compared in constant time) and the
  // payload within kMaxFanoutBytes; nullopt otherwise. Views into payload.
  std::optional<std::string_view> verify(std::string_view payload) const;

 private:
  std::string key_;
};

// The fan-out key: HMAC-SHA256(secret, kFanoutKeyLabel), in hex.
std::string fanout_key(std::string_view secret);

}  // namespace mediagen::realtime
