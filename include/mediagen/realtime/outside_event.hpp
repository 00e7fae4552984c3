#pragma once
// Events from a process that serves no sockets (an operator command such as a gift code
// redemption): the signed fan-out message that every serving instance, given the same
// MEDIAGEN_SECRET, delivers to its subscribers. The caller PUBLISHes it on the fan-out channel.
#include <string>
#include <string_view>

#include "mediagen/realtime/event.hpp"

namespace mediagen::realtime {

// `fanout_secret` as the serving instances have it (HubOptions::fanout_secret).
std::string outside_fanout_message(std::string_view fanout_secret, const Event& event);

}  // namespace mediagen::realtime
