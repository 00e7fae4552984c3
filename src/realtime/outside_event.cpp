#include "mediagen/realtime/outside_event.hpp"

#include "fanout_message.hpp"
#include "fanout_signature.hpp"

namespace mediagen::realtime {
namespace {

// Instances name themselves 1..999999999 (hub_core.cpp); "0" is no instance, so none of them
// takes the message for its own.
constexpr std::string_view kOutsideOrigin = "0";

}  // namespace

std::string outside_fanout_message(std::string_view fanout_secret, const Event& event) {
  const FanoutSigner signer(fanout_key(fanout_secret));
  return signer.sign(format_fanout(kOutsideOrigin, wire_frame(event)));
}

}  // namespace mediagen::realtime
