#pragma once
// Messages on the Redis fan-out channel: "<origin> <frame>", where origin names the instance that
// published (so it can skip its own) and frame is the exact Pusher frame sockets receive.
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

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

}  // namespace mediagen::realtime
