#pragma once
// The refusal a request reader returns, checked as the client would see it (spec 2.1, 7.1):
// rendered by the envelope in both locales, the body is JSON of the shape its kind promises,
// every message is catalogue text (an unknown key would render as the key itself), and the
// status is a 4xx. Targets using it link src/http/envelope.cpp, src/core/api_error.cpp,
// src/core/message_catalogue.cpp, src/core/time_zone.cpp and src/core/utf8.cpp.
#include <nlohmann/json.hpp>

#include "fuzz_support.hpp"
#include "mediagen/core/api_error.hpp"
#include "mediagen/core/time_zone.hpp"
#include "mediagen/http/envelope.hpp"

namespace mediagen::fuzz {

inline void check_message_rendered(const Message& m) {
  FUZZ_CHECK(!m.key.empty());
  FUZZ_CHECK(render(m, Locale::en) != m.key);
  FUZZ_CHECK(render(m, Locale::ru) != m.key);
}

inline void check_error_shape(const ApiError& e) {
  FUZZ_CHECK(e.status >= 400 && e.status <= 499);
  if (e.shape == ErrorShape::validation) {
    FUZZ_CHECK(e.status == 422);
    FUZZ_CHECK(!e.fields.empty());
    for (const auto& f : e.fields) {
      FUZZ_CHECK(!f.messages.empty());
      for (const auto& m : f.messages) check_message_rendered(m);
    }
  } else {
    check_message_rendered(e.message);
  }
  for (const Locale locale : {Locale::en, Locale::ru}) {
    const auto body = nlohmann::json::parse(http::error_body(e, locale, TimeZone::utc()), nullptr, false);
    FUZZ_CHECK(body.is_object());
    if (e.shape == ErrorShape::validation) {
      // {message, errors:{field:[text, ...]}} and nothing else: no "success".
      FUZZ_CHECK(body.size() == 2 && body.contains("message") && body.contains("errors"));
      FUZZ_CHECK(body["message"].is_string() && !body["message"].get_ref<const std::string&>().empty());
      const auto& errors = body["errors"];
      FUZZ_CHECK(errors.is_object() && !errors.empty());
      for (const auto& [field, list] : errors.items()) {
        FUZZ_CHECK(!field.empty());
        FUZZ_CHECK(list.is_array() && !list.empty());
        for (const auto& text : list) FUZZ_CHECK(text.is_string() && !text.get_ref<const std::string&>().empty());
      }
      continue;
    }
    FUZZ_CHECK(body.contains("success") && body["success"] == false);
    FUZZ_CHECK(body.contains("message") && body["message"].is_string());
    if (e.shape == ErrorShape::auth) FUZZ_CHECK(body.contains("data") && body["data"].is_null());
    if (e.shape == ErrorShape::domain) {
      FUZZ_CHECK(body.contains("reason") && body["reason"].is_string());
      FUZZ_CHECK(body["reason"] == body["error_code"]);
      FUZZ_CHECK(body["reason"].get_ref<const std::string&>() == to_string(e.reason));
    }
  }
}

}  // namespace mediagen::fuzz
