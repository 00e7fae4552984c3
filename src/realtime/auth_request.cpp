#include "auth_request.hpp"

#include <utility>

#include <nlohmann/json.hpp>

#include "mediagen/core/clean_json.hpp"
#include "mediagen/core/ascii.hpp"
#include "mediagen/http/query.hpp"

namespace mediagen::realtime {
namespace {

enum class BodyFormat { form, json };

bool contains_ci(std::string_view text, std::string_view needle) {
  return ascii_lower(text).find(needle) != std::string::npos;
}

// pusher-js sends a form, Laravel Echo may send JSON; without a Content-Type the body decides.
Result<BodyFormat> body_format(std::optional<std::string_view> type, std::string_view body) {
  if (type && !type->empty()) {
    if (contains_ci(*type, "json")) return BodyFormat::json;
    if (contains_ci(*type, "application/x-www-form-urlencoded")) return BodyFormat::form;
    return ApiError::unsupported_media_type();
  }
  const auto first = body.find_first_not_of(" \t\r\n");
  return first != std::string_view::npos && body[first] == '{' ? BodyFormat::json : BodyFormat::form;
}

RawAuthField form_field(const http::Query& form, std::string_view name) {
  if (auto v = form.get(name)) return RawAuthField{std::string(*v)};
  return RawAuthField{};
}

RawAuthField json_field(const nlohmann::json& body, const char* name) {
  const auto it = body.find(name);
  if (it == body.end() || it->is_null()) return RawAuthField{};
  if (!it->is_string()) return RawAuthField{std::nullopt, true};
  return RawAuthField{it->get<std::string>()};
}

}  // namespace

Result<RawAuthFields> read_auth_fields(std::optional<std::string_view> content_type, std::string_view body) {
  auto format = body_format(content_type, body);
  if (!format) return format.error();
  if (*format == BodyFormat::form) {
    const http::Query form = http::Query::parse(body);
    return RawAuthFields{form_field(form, "socket_id"), form_field(form, "channel_name")};
  }
  if (body.find_first_not_of(" \t\r\n") == std::string_view::npos) return RawAuthFields{};
  const auto parsed = parse_untrusted_json(body);
  if (parsed.is_discarded()) return ApiError::validation("body", Message{"validation.invalid_json"});
  if (!parsed.is_object()) return ApiError::validation("body", Message{"validation.object", {{"attribute", "body"}}});
  // The rule of every JSON body (the pipeline's body stage does not read this route's body).
  if (auto field = unclean_json_field(parsed)) {
    Message m{"validation.clean_text", {{"attribute", *field}}};
    return ApiError::validation(std::move(*field), std::move(m));
  }
  return RawAuthFields{json_field(parsed, "socket_id"), json_field(parsed, "channel_name")};
}

Result<AuthRequest> parse_auth_request(std::optional<std::string_view> content_type, std::string_view body) {
  auto fields = read_auth_fields(content_type, body);
  if (!fields) return fields.error();
  std::optional<ApiError> errors;
  auto fail = [&errors](std::string field, Message m) {
    if (!errors) errors = ApiError::validation(std::move(field), std::move(m));
    else errors->add_field(std::move(field), std::move(m));
  };
  // The text of one field, or nullopt after recording why it is unusable.
  auto text_of = [&fail](const RawAuthField& raw, const char* name) -> std::optional<std::string> {
    if (raw.not_a_string) {
      fail(name, Message{"validation.string", {{"attribute", name}}});
      return std::nullopt;
    }
    if (!raw.text || raw.text->empty()) {
      fail(name, Message{"validation.required", {{"attribute", name}}});
      return std::nullopt;
    }
    return raw.text;
  };

  AuthRequest out;
  if (auto socket_id = text_of(fields->socket_id, "socket_id")) {
    if (valid_socket_id(*socket_id)) out.socket_id = std::move(*socket_id);
    else fail("socket_id", Message{"validation.socket_id", {{"attribute", "socket_id"}}});
  }
  if (auto name = text_of(fields->channel_name, "channel_name")) {
    if (auto channel = parse_channel(*name)) {
      out.channel = std::move(*channel);
      out.channel_name = std::move(*name);
    } else {
      fail("channel_name", Message{"validation.channel_name", {{"attribute", "channel_name"}}});
    }
  }
  if (errors) return std::move(*errors);
  return out;
}

}  // namespace mediagen::realtime
