#pragma once
// Messages on the Redis fan-out channel, each led by the origin that names the instance that
// published it (so it can skip its own):
//   "<origin> <frame>"                               an event; frame is the exact Pusher frame
//   "<origin> grant <socket_id> <channel> <record>"  which key authorized a socket for a channel
//                                                    (record: grant_record.hpp)
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "mediagen/realtime/grant.hpp"

namespace mediagen::realtime {

std::string format_fanout(std::string_view origin, std::string_view frame);

struct FanoutMessage {
  std::string_view origin;
  std::string channel;
  std::string_view frame;
  std::int64_t seq = 0;  // the event's per-order sequence number, 0 when it has none
};

// The channel is untrusted input: strict shape (an event frame for one of our private channels
// with a string event and string data), nullopt otherwise.
std::optional<FanoutMessage> parse_fanout(std::string_view payload);

std::string format_grant_message(std::string_view origin, const Grant& grant);

struct GrantMessage {
  std::string_view origin;
  Grant grant;
};

// nullopt when the payload is not a well-formed grant message (it may still be an event).
std::optional<GrantMessage> parse_grant_message(std::string_view payload);

}  // namespace mediagen::realtime
