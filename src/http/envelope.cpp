#include "mediagen/http/envelope.hpp"
#include "mediagen/core/json_text.hpp"

#include <nlohmann/json.hpp>

#include "mediagen/core/json_writer.hpp"

namespace mediagen::http {

Response success_response(Reply reply, Locale locale) {
  Response r;
  r.status = reply.status;
  r.headers = std::move(reply.headers);
  if (reply.bare) {
    if (reply.body_source) r.body_source = std::move(reply.body_source);
    else r.body = std::move(reply.data_json);
    if (!reply.content_type.empty()) r.content_type = reply.content_type;
    return r;
  }
  const std::string message = render(reply.message, locale);
  r.body.reserve(40 + message.size() + reply.data_json.size());
  r.body += R"({"success":true,"message":)";
  append_json_string(r.body, message);
  r.body += R"(,"data":)";
  r.body += reply.data_json;
  r.body += '}';
  return r;
}

std::string error_body(const ApiError& e, Locale locale, const TimeZone& tz) {
  nlohmann::ordered_json body;
  if (e.shape == ErrorShape::validation) {
    nlohmann::ordered_json errors = nlohmann::ordered_json::object();
    std::string first;
    for (const auto& f : e.fields) {
      auto& list = errors[f.field] = nlohmann::ordered_json::array();
      for (const auto& m : f.messages) {
        list.push_back(render(m, locale));
        if (first.empty()) first = list.back().get<std::string>();
      }
    }
    body["message"] = first.empty() ? render(Message{"errors.bad_request"}, locale) : first;
    body["errors"] = std::move(errors);
    return to_json_text(body);
  }
  body["success"] = false;
  body["message"] = render(e.message, locale);
  if (e.with_english_message) body["message_en"] = render(e.message, Locale::en);
  if (e.shape == ErrorShape::auth) {
    body["data"] = nullptr;
  } else if (e.shape == ErrorShape::domain && e.reason != Reason::none) {
    body["reason"] = to_string(e.reason);
    body["error_code"] = to_string(e.reason);
  }
  for (const auto& [key, value] : e.extra) {
    auto& slot = body[key];
    std::visit(
        [&](const auto& v) {
          using V = std::decay_t<decltype(v)>;
          if constexpr (std::is_same_v<V, TimePoint>) {
            slot = tz.format(v);
          } else if constexpr (std::is_same_v<V, Message>) {
            slot = render(v, locale);
          } else {
            slot = v;
          }
        },
        value);
  }
  return to_json_text(body);
}

Response error_response(const ApiError& e, Locale locale, const TimeZone& tz) {
  Response r;
  r.status = e.status;
  r.headers = e.headers;
  r.body = error_body(e, locale, tz);
  r.close = e.close_connection;
  return r;
}

}  // namespace mediagen::http
