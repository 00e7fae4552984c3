#pragma once
// The Pusher protocol 7 frames the server sends, and the reading of what clients send.
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace mediagen::realtime {

// pusher:error codes (Pusher's ranges: 4000-4099 do not reconnect, 4100-4199 back off,
// 4200-4299 reconnect at once, 4300-4399 other errors).
namespace error_code {
inline constexpr int app_not_found = 4001;
inline constexpr int unsupported_protocol = 4007;
inline constexpr int unauthorized = 4009;
inline constexpr int over_capacity = 4100;
inline constexpr int reconnect = 4200;  // also: a malformed or unknown message (the socket stays)
inline constexpr int pong_not_received = 4201;
inline constexpr int client_event_rejected = 4301;
inline constexpr int subscription_limit = 4302;
}  // namespace error_code

std::string connection_established_frame(std::string_view socket_id, std::int64_t activity_timeout_seconds);
std::string error_frame(int code, std::string_view message);
std::string subscription_succeeded_frame(std::string_view channel);
// Channel-scoped, as soketi sends it: pusher-js hands it to channel.bind('pusher:subscription_error')
// and Laravel Echo to .error().
std::string subscription_error_frame(std::string_view channel, int status, std::string_view message);
std::string ping_frame();
std::string pong_frame();

// A client message: {"event": "...", "data": {...} or "<json>", "channel": "..."}.
struct ClientMessage {
  std::string event;
  std::string channel;  // data.channel for subscribe/unsubscribe
  std::string auth;     // data.auth for subscribe
};

enum class ClientMessageError { not_json, not_object, no_event, bad_data };

struct ParsedClientMessage {
  std::optional<ClientMessage> message;
  ClientMessageError error = ClientMessageError::not_json;
};

ParsedClientMessage parse_client_message(std::string_view text);

// The "seq" of an event's data (a JSON object's text); 0 when absent.
std::int64_t event_seq(std::string_view data);

}  // namespace mediagen::realtime
