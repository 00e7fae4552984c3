#pragma once
// The one way JSON values become text. nlohmann's plain dump() throws type_error.316 on a string
// that is not valid UTF-8, and strings here may hold text from outside (names, prompts, headers,
// Redis payloads): this never throws, writing U+FFFD for invalid bytes instead.
// tests/tools/json_dump_test.py keeps every other dump() out of src/.
#include <string>

#include <nlohmann/json.hpp>

namespace mediagen {

template <class Json>
std::string to_json_text(const Json& value) {
  return value.dump(-1, ' ', false, Json::error_handler_t::replace);
}

}  // namespace mediagen
