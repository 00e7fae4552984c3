#pragma once
// Every message on the Redis fan-out channel (events and grants, fanout_message.hpp) is signed
// (core/signed_message.hpp) under a key all instances derive from MEDIAGEN_SECRET. Whoever can
// PUBLISH on Redis but does not hold the secret cannot push events into a user's channel or
// grant a socket a key.
#include <cstddef>
#include <optional>
#include <string>
#include <string_view>

#include "mediagen/core/signed_message.hpp"

namespace mediagen::realtime {

// Far above any event or grant this service publishes; a larger payload is not read at all.
inline constexpr std::size_t kMaxFanoutBytes = 1 << 20;

// The label that makes the fan-out key differ from every other key derived from the same secret.
inline constexpr std::string_view kFanoutKeyLabel = "mediagen realtime fan-out v1";

// The fan-out channel's signer (core/signed_message.hpp), bounded by kMaxFanoutBytes.
class FanoutSigner : public MessageSigner {
 public:
  // key: the derived key (fanout_key below), shared by every instance.
  explicit FanoutSigner(std::string key) : MessageSigner(std::move(key), kMaxFanoutBytes) {}
};

// The fan-out key: HMAC-SHA256(secret, kFanoutKeyLabel), in hex.
std::string fanout_key(std::string_view secret);

}  // namespace mediagen::realtime
