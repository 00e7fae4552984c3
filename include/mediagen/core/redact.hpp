#pragma once
// Connection strings from configuration carry passwords; anything that shows one (an error, a
// log line) shows it redacted.
#include <string>
#include <string_view>

namespace mediagen {

inline constexpr std::string_view kRedacted = "***";

// The URL with the password of its userinfo ("scheme://user:password@host", or the whole
// userinfo when it has no ':', which Redis reads as a password) and the value of any
// "password=" parameter (URI query or libpq key/value form) replaced by ***. Errs towards
// hiding too much: userinfo ends at the last '@'.
std::string redact_url(std::string_view url);

// The message with every appearance of the password that `url` carries (as written and
// percent-decoded) replaced by ***: for errors of libraries that quote pieces of the URL.
std::string redact_secrets(std::string_view message, std::string_view url);

}  // namespace mediagen
