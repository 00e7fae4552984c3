#pragma once
// The header block of one multipart part and the Content-Type of the whole body: the text rules
// (RFC 7578 section 4, RFC 2046 5.1.1, RFC 5987 for filename*), kept apart from the streaming.
#include <optional>
#include <string>
#include <string_view>

#include "mediagen/http/multipart.hpp"

namespace mediagen::http::multipart_detail {

struct PartHeaders {
  std::string name;
  std::optional<std::string> filename;
  std::optional<std::string> content_type;
};

// Parses the header lines of a part (CRLF-separated, without the blank line that ends them).
// Header names are case-insensitive; unknown headers are ignored; a folded line, a line without a
// colon, a bare CR or LF, a repeated Content-Disposition or Content-Type, a Content-Type that is
// empty or not printable ASCII, a disposition other than form-data, a repeated parameter or a
// filename* that is not UTF-8'' percent-encoded is bad_part_header; no name, or an empty one,
// is missing_name.
std::optional<MultipartError> parse_part_headers(std::string_view block, PartHeaders& out);

bool is_valid_boundary(std::string_view boundary) noexcept;

}  // namespace mediagen::http::multipart_detail
