// A text frame from a Pusher client socket (input: the frame's text). Properties:
//   - parse_client_message never crashes, and a subscribe/unsubscribe it accepts has a channel;
//   - parse_channel is strict: a channel it accepts is spelled exactly as the name built back
//     from its parts, and is at most kMaxChannelName bytes;
//   - every frame the session answers with (pusher:error, pusher:subscription_error with the
//     channel echoed, pusher_internal:subscription_succeeded) is valid JSON, and a frame's string
//     data is itself valid JSON (protocol 7), whatever bytes the channel or message hold.
#include <nlohmann/json.hpp>

#include "fuzz_support.hpp"
#include "mediagen/core/utf8.hpp"
#include "mediagen/realtime/channel.hpp"
#include "realtime/pusher_frames.hpp"

namespace {

using namespace mediagen::realtime;
using mediagen::fuzz::as_text;
using nlohmann::json;

// Valid JSON whose "data", when a string, is valid JSON too.
bool valid_frame(const std::string& frame) {
  const json f = json::parse(frame, nullptr, false);
  if (f.is_discarded() || !f.is_object()) return false;
  const auto data = f.find("data");
  if (data == f.end()) return false;
  return !data->is_string() || json::accept(data->get_ref<const std::string&>());
}

void check_channel(std::string_view name) {
  const auto channel = parse_channel(name);
  if (!channel) return;
  FUZZ_CHECK(name.size() <= kMaxChannelName);
  std::string rebuilt;
  switch (channel->kind) {
    case ChannelKind::order: rebuilt = order_channel(channel->order_id->str()); break;
    case ChannelKind::preview: rebuilt = preview_channel(channel->user); break;
    case ChannelKind::voice_clones: rebuilt = voice_clones_channel(channel->user); break;
    case ChannelKind::reseller_codes: rebuilt = reseller_codes_channel(channel->user); break;
  }
  FUZZ_CHECK(rebuilt == name);
  FUZZ_CHECK(valid_frame(subscription_succeeded_frame(name)));
}

// The answers PusherSession::subscribe gives: success for a known channel, otherwise the refusal
// with the channel echoed (cut to the limit where no code point splits).
void answer_subscription(const ClientMessage& m) {
  check_channel(m.channel);
  const std::string echoed(mediagen::utf8_prefix(m.channel, kMaxChannelName));
  FUZZ_CHECK(echoed.size() <= kMaxChannelName && std::string_view(m.channel).starts_with(echoed));
  FUZZ_CHECK(valid_frame(subscription_error_frame(echoed, 403, "Only the private channels of this server can be subscribed")));
  FUZZ_CHECK(valid_frame(subscription_error_frame(m.channel, 401, "Invalid signature for this socket and channel")));
  FUZZ_CHECK(valid_frame(error_frame(error_code::unauthorized, "Invalid signature for this socket and channel")));
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view text = as_text(data, size);
  const auto parsed = parse_client_message(text);
  (void)event_seq(text);
  if (!parsed.message) {
    FUZZ_CHECK(valid_frame(error_frame(error_code::reconnect, "Invalid message format")));
  } else {
    const ClientMessage& m = *parsed.message;
    if (m.event == "pusher:subscribe" || m.event == "pusher:unsubscribe") answer_subscription(m);
    else check_channel(m.channel);
    // Client text in a message (an event name in a log line or an error) stays valid JSON.
    FUZZ_CHECK(valid_frame(error_frame(error_code::reconnect, m.event)));
  }
  // Bytes straight from the socket, not through the JSON parser: still valid frames.
  const std::string_view raw = text.substr(0, 512);
  FUZZ_CHECK(valid_frame(subscription_error_frame(raw, 403, raw)));
  FUZZ_CHECK(valid_frame(subscription_succeeded_frame(raw)));
  FUZZ_CHECK(valid_frame(error_frame(error_code::reconnect, raw)));
  return 0;
}
