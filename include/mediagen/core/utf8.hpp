#pragma once
#include <string_view>

namespace mediagen {

// Strict UTF-8: no overlong forms, no surrogates (U+D800..U+DFFF), nothing above U+10FFFF, no
// stray continuation bytes, no truncated sequences, no 5- or 6-byte forms.
bool is_valid_utf8(std::string_view text) noexcept;

}  // namespace mediagen
