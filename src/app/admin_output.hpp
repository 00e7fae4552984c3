#pragma once
// How every operator command answers: one JSON line on stdout, or one error line on stderr.
#include <cstdio>
#include <string>

#include <nlohmann/json.hpp>

#include "mediagen/core/json_text.hpp"

namespace mediagen::app {

inline void print(const nlohmann::ordered_json& j) { std::printf("%s\n", to_json_text(j).c_str()); }

inline int fail(const std::string& message) {
  std::fprintf(stderr, "error: %s\n", message.c_str());
  return 1;
}

}  // namespace mediagen::app
