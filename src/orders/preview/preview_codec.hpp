#pragma once
// How a preview document is kept in Redis: deflated (zlib) behind a short tag. A plan's JSON
// repeats its field names for every chunk and its chunk texts are prose, so it shrinks several
// times; what is read back is byte for byte the document that was rendered, so every page is
// cut exactly as before. A plain JSON document (the "processing" marker, or a value written
// before packing existed) is read as it is.
#include <cstddef>
#include <optional>
#include <string>
#include <string_view>

namespace mediagen::orders {

inline constexpr std::string_view kPackedPreviewTag = "z1:";
// Far above the largest document a 1,000,000-character preview renders; a stored value that
// inflates beyond it (Redis is shared, its content untrusted) is refused, not inflated further.
inline constexpr std::size_t kMaxPreviewDocumentBytes = std::size_t{128} << 20;

std::string pack_preview(std::string_view document);
// The document, or nullopt when the value is neither a packed nor a plain document, is
// corrupt, or inflates past max_bytes.
std::optional<std::string> unpack_preview(std::string_view stored, std::size_t max_bytes = kMaxPreviewDocumentBytes);

}  // namespace mediagen::orders
