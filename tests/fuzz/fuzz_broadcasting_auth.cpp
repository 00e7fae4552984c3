// The body of POST /broadcasting/auth (src/realtime/auth_request.cpp). Input: line 1 the
// Content-Type (empty: none), the rest the body. Properties:
//   - read_auth_fields never crashes; it refuses only with 415 (another Content-Type) or 422
//     (JSON that does not parse or is not an object);
//   - parse_auth_request accepts exactly when both fields are present and well-formed text: a
//     socket id valid_socket_id accepts and one of our private channels; otherwise one 422;
//   - a form body and the same fields as JSON read the same.
#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

#include "fuzz_support.hpp"
#include "mediagen/realtime/channel.hpp"
#include "realtime/auth_request.hpp"

namespace {

using namespace mediagen::realtime;
using mediagen::fuzz::Lines;

// Every byte but the unreserved ones percent-encoded, as a browser's form encoder writes them.
std::string form_encode(std::string_view text) {
  static constexpr char kHex[] = "0123456789ABCDEF";
  std::string out;
  for (char ch : text) {
    const auto c = static_cast<unsigned char>(ch);
    if ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '-' || c == '_' ||
        c == '.' || c == '~') {
      out += ch;
    } else {
      out += '%';
      out += kHex[c >> 4];
      out += kHex[c & 0xF];
    }
  }
  return out;
}

bool usable(const RawAuthField& f) { return !f.not_a_string && f.text && !f.text->empty(); }

// The same two fields sent the other way (JSON for a form, a form for JSON) read the same.
void check_other_encoding(const RawAuthFields& fields) {
  if (!usable(fields.socket_id) || !usable(fields.channel_name)) return;
  const std::string& socket_id = *fields.socket_id.text;
  const std::string& channel = *fields.channel_name.text;
  const std::string form = "socket_id=" + form_encode(socket_id) + "&channel_name=" + form_encode(channel);
  const auto from_form = parse_auth_request("application/x-www-form-urlencoded", form);
  FUZZ_CHECK(from_form.has_value() == (valid_socket_id(socket_id) && parse_channel(channel).has_value()));
  if (from_form) FUZZ_CHECK(from_form->socket_id == socket_id && from_form->channel_name == channel);
  // JSON strings hold valid UTF-8 only: fields from a form may not, and are then not sent so.
  nlohmann::json body{{"socket_id", socket_id}, {"channel_name", channel}};
  std::string text;
  try {
    text = body.dump();
  } catch (const nlohmann::json::type_error&) {
    return;
  }
  const auto from_json = parse_auth_request("application/json", text);
  FUZZ_CHECK(from_json.has_value() == from_form.has_value());
  if (from_json) FUZZ_CHECK(from_json->socket_id == socket_id && from_json->channel_name == channel);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  Lines lines{mediagen::fuzz::as_text(data, size)};
  std::string_view type_line;
  if (!lines.next(type_line)) return 0;
  const std::optional<std::string_view> type =
      type_line.empty() ? std::nullopt : std::optional<std::string_view>(type_line);
  const std::string_view body = lines.rest;

  const auto fields = read_auth_fields(type, body);
  const auto request = parse_auth_request(type, body);
  if (!fields) {
    FUZZ_CHECK(fields.error().status == 415 || fields.error().status == 422);
    FUZZ_CHECK(!request && request.error().status == fields.error().status);
    return 0;
  }
  const bool well_formed = usable(fields->socket_id) && usable(fields->channel_name) &&
                           valid_socket_id(*fields->socket_id.text) &&
                           parse_channel(*fields->channel_name.text).has_value();
  FUZZ_CHECK(request.has_value() == well_formed);
  if (request) {
    FUZZ_CHECK(request->socket_id == *fields->socket_id.text);
    FUZZ_CHECK(request->channel_name == *fields->channel_name.text);
  } else {
    FUZZ_CHECK(request.error().status == 422 && !request.error().fields.empty());
  }
  check_other_encoding(*fields);
  return 0;
}
