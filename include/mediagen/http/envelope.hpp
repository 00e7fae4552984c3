#pragma once
// The response shapes of spec 2.1: nothing else writes response bodies.
#include <string>

#include "mediagen/core/api_error.hpp"
#include "mediagen/core/time_zone.hpp"
#include "mediagen/http/message.hpp"

namespace mediagen::http {

// By value: a bare body (a file) is moved into the response, not copied.
Response success_response(Reply reply, Locale locale);
Response error_response(const ApiError& error, Locale locale, const TimeZone& tz);
std::string error_body(const ApiError& error, Locale locale, const TimeZone& tz);

}  // namespace mediagen::http
