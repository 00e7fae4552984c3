#pragma once
#include <string_view>

namespace mediagen::storage {

// The Content-Type a stored file is served with, from its extension (case-insensitive); text
// formats carry charset=utf-8; anything unknown is application/octet-stream. Static text.
std::string_view media_type_for(std::string_view key);

}  // namespace mediagen::storage
