#pragma once
// The body of POST /broadcasting/auth: socket_id and channel_name, read from a form (what pusher-js
// sends) or JSON (Laravel Echo). Pure, no I/O: the handler and the fuzz target call the same code.
#include <optional>
#include <string>
#include <string_view>

#include "mediagen/core/api_error.hpp"
#include "mediagen/realtime/channel.hpp"

namespace mediagen::realtime {

// A field present, absent, or present with a value that is not text (JSON only).
struct RawAuthField {
  std::optional<std::string> text;
  bool not_a_string = false;
};

struct RawAuthFields {
  RawAuthField socket_id;
  RawAuthField channel_name;
};

// The two fields as sent. Without a Content-Type (absent or empty) the body decides: JSON when
// it starts with '{'. 415 for a type that is neither JSON nor a form; 422 for JSON that does not
// parse or is not an object. A blank JSON body has neither field.
Result<RawAuthFields> read_auth_fields(std::optional<std::string_view> content_type, std::string_view body);

struct AuthRequest {
  std::string socket_id;
  std::string channel_name;
  Channel channel;
};

// The fields checked: a well-formed socket id and one of our private channels. Both are
// checked, so one 422 names every bad field.
Result<AuthRequest> parse_auth_request(std::optional<std::string_view> content_type, std::string_view body);

}  // namespace mediagen::realtime
