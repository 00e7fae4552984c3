#pragma once
// Reading the members of a compatible surface's JSON body, as the APIs it copies read them: null
// is absent, and a refusal is a 422 naming the field (each surface renders it in its own shape).
#include <cstddef>
#include <optional>
#include <string>
#include <string_view>

#include <nlohmann/json_fwd.hpp>

#include "mediagen/core/api_error.hpp"

namespace mediagen::compat {

// The member `name`, or nullptr when it is absent or null.
const nlohmann::json* member(const nlohmann::json& body, std::string_view name);

// A string of 1..max code points; absent is nullopt unless `required`, and "" is refused as
// missing either way.
Result<std::optional<std::string>> read_string(const nlohmann::json& body, std::string_view field, std::size_t max,
                                               bool required);

}  // namespace mediagen::compat
