#include "wire.hpp"

#include <string>

#include "mediagen/core/ascii.hpp"

namespace mediagen::http::wire {

Method to_method(bhttp::verb v) {
  switch (v) {
    case bhttp::verb::get: return Method::get;
    case bhttp::verb::head: return Method::head;
    case bhttp::verb::post: return Method::post;
    case bhttp::verb::put: return Method::put;
    case bhttp::verb::patch: return Method::patch;
    case bhttp::verb::delete_: return Method::del;
    case bhttp::verb::options: return Method::options;
    default: return Method::other;
  }
}

bool framing_ok(const Parser& parser) {
  const auto& h = parser.get();
  auto te = h.find(bhttp::field::transfer_encoding);
  if (te == h.end()) return true;
  if (h.find(bhttp::field::content_length) != h.end()) return false;
  return iequals_ascii(te->value(), "chunked");
}

namespace {

// RFC 9110 5.6.2: tchar.
bool is_token_char(char c) {
  if ((c >= '0' && c <= '9') || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z')) return true;
  return std::string_view("!#$%&'*+-.^_`|~").find(c) != std::string_view::npos;
}

}  // namespace

bool header_line_safe(std::string_view name, std::string_view value) {
  if (name.empty()) return false;
  for (char c : name) {
    if (!is_token_char(c)) return false;
  }
  return value.find_first_of(std::string_view("\r\n\0", 3)) == std::string_view::npos;
}

ResponseHead response_head(const Response& r, unsigned version, bool keep_alive,
                           std::optional<std::uint64_t> content_length, std::pmr::memory_resource* memory) {
  ResponseHead head{HeadFields::allocator_type(memory)};
  head.version(version);
  head.result(static_cast<unsigned>(r.status));
  // A 304 describes the representation the client already holds: a Content-Length here would
  // have to be that one's (RFC 9110 8.6), so it carries neither length nor type.
  if (r.status != 304) {
    if (header_line_safe("Content-Type", r.content_type)) head.insert(bhttp::field::content_type, r.content_type);
    if (content_length) {
      head.insert(bhttp::field::content_length, std::to_string(*content_length));
    } else if (version != 10) {
      head.insert(bhttp::field::transfer_encoding, "chunked");
    }
  }
  for (const auto& [k, v] : r.headers) {
    // Values are ours, but a line break would split the response: never emit one.
    if (header_line_safe(k, v)) head.insert(k, v);
  }
  if (!keep_alive) {
    head.insert(bhttp::field::connection, "close");
  } else if (version == 10) {
    head.insert(bhttp::field::connection, "keep-alive");
  }
  return head;
}

}  // namespace mediagen::http::wire
