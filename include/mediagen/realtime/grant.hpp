#pragma once
// Which API key authorized a socket for a channel: kept so that a socket whose key is disabled
// or expires can be closed.
#include <optional>
#include <string>

#include "mediagen/core/clock.hpp"
#include "mediagen/core/crypto.hpp"
#include "mediagen/core/ids.hpp"

namespace mediagen::realtime {

struct Grant {
  std::string socket_id;
  std::string channel;
  ApiKeyId key_id;
  UserId user;
  crypto::Sha256Digest key_hash{};
  std::optional<TimePoint> expires_at;
};

}  // namespace mediagen::realtime
