#pragma once
// The clean-text rule (utf8.hpp: is_clean_text) over a parsed JSON body: every string in it, value
// or key at any depth, must hold no refused control character (the parser has already refused
// invalid UTF-8, so \u0000 and the like are what remain).
#include <optional>
#include <string>
#include <string_view>

#include <nlohmann/json_fwd.hpp>

namespace mediagen {

// The dotted path of the first string that breaks the rule (task_data.prompt, items.0.text; for a
// bad key, the field that holds it; "body" at the top), or nullopt when every string is clean.
std::optional<std::string> unclean_json_field(const nlohmann::json& body);

// Parses JSON that came from outside without exceptions: a discarded value when the text does
// not parse, or when it holds a raw NUL byte (nlohmann takes a NUL after a complete value for the
// end of input, so "{..}\0anything" would otherwise pass as "{..}").
nlohmann::json parse_untrusted_json(std::string_view text);

}  // namespace mediagen
