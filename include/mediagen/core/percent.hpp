#pragma once
// Percent-encoding (RFC 3986), done by Boost.URL.
#include <string>
#include <string_view>

namespace mediagen {

// %XX (either case) is the byte; a '%' that starts no such escape stays as written, as clients
// and proxies send it; '+' is a space when plus_is_space (HTML forms, query strings).
std::string percent_decode(std::string_view text, bool plus_is_space);

// Every byte but the unreserved characters (A-Z a-z 0-9 - . _ ~) as %XX, upper-case digits.
std::string percent_encode(std::string_view text);

// `text` with each '%' that starts no %XX escape written as "%25": it decodes to the same
// bytes, and Boost.URL, which refuses a malformed escape, reads it.
std::string escape_stray_percent(std::string_view text);

}  // namespace mediagen
