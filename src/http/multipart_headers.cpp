#include "multipart_headers.hpp"

#include <algorithm>
#include <utility>
#include <vector>

namespace mediagen::http {

namespace multipart_detail {
namespace {

using Params = std::vector<std::pair<std::string, std::string>>;

char lower(char c) noexcept { return (c >= 'A' && c <= 'Z') ? static_cast<char>(c - 'A' + 'a') : c; }

std::string lowered(std::string_view s) {
  std::string out(s);
  std::transform(out.begin(), out.end(), out.begin(), lower);
  return out;
}

bool iequals(std::string_view a, std::string_view b) noexcept {
  return a.size() == b.size() && std::equal(a.begin(), a.end(), b.begin(), [](char x, char y) { return lower(x) == lower(y); });
}

bool is_tchar(char c) noexcept {
  if ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9')) return true;
  return std::string_view{"!#$%&'*+-.^_`|~"}.find(c) != std::string_view::npos;
}

void skip_ows(std::string_view& s) noexcept {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
}

std::string_view take_token(std::string_view& s) noexcept {
  std::size_t n = 0;
  while (n < s.size() && is_tchar(s[n])) ++n;
  auto token = s.substr(0, n);
  s.remove_prefix(n);
  return token;
}

// A quoted-string; a backslash keeps the next byte whatever it is. Bytes from 0x80 up are kept
// as they are (file names in UTF-8, or not).
std::optional<std::string> take_quoted(std::string_view& s) {
  std::string out;
  for (std::size_t i = 1; i < s.size(); ++i) {
    const char c = s[i];
    if (c == '"') {
      s.remove_prefix(i + 1);
      return out;
    }
    if (c == '\\') {
      if (++i == s.size()) return std::nullopt;
      out.push_back(s[i]);
    } else {
      out.push_back(c);
    }
  }
  return std::nullopt;  // unterminated
}

// `type *( OWS ";" OWS name "=" ( token / quoted-string ) )`: the type and the parameters, names
// lower-cased. Empty parameters (";;", a trailing ";") are let pass, as browsers send them.
std::optional<std::string> parse_params(std::string_view s, Params& params) {
  skip_ows(s);
  std::string type = lowered(take_token(s));
  if (type.empty()) return std::nullopt;
  if (!s.empty() && s.front() == '/') {  // media types: type/subtype
    s.remove_prefix(1);
    auto sub = take_token(s);
    if (sub.empty()) return std::nullopt;
    type += '/' + lowered(sub);
  }
  for (;;) {
    skip_ows(s);
    if (s.empty()) return type;
    if (s.front() != ';') return std::nullopt;
    s.remove_prefix(1);
    skip_ows(s);
    if (s.empty() || s.front() == ';') continue;
    std::string name = lowered(take_token(s));
    skip_ows(s);
    if (name.empty() || s.empty() || s.front() != '=') return std::nullopt;
    s.remove_prefix(1);
    skip_ows(s);
    std::optional<std::string> value;
    if (!s.empty() && s.front() == '"') value = take_quoted(s);
    else value = std::string(take_token(s));
    if (!value) return std::nullopt;
    for (const auto& [seen, v] : params) {
      if (seen == name) return std::nullopt;  // which one would count is anyone's guess
    }
    params.emplace_back(std::move(name), std::move(*value));
  }
}

const std::string* find_param(const Params& params, std::string_view name) {
  for (const auto& [n, v] : params) {
    if (n == name) return &v;
  }
  return nullptr;
}

int hex_value(char c) noexcept {
  if (c >= '0' && c <= '9') return c - '0';
  c = lower(c);
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  return -1;
}

// RFC 5987 ext-value: charset "'" [language] "'" percent-encoded bytes; only UTF-8 is taken.
std::optional<std::string> decode_ext_value(std::string_view value) {
  const auto first = value.find('\'');
  if (first == std::string_view::npos || !iequals(value.substr(0, first), "utf-8")) return std::nullopt;
  const auto second = value.find('\'', first + 1);
  if (second == std::string_view::npos) return std::nullopt;
  std::string out;
  for (std::size_t i = second + 1; i < value.size(); ++i) {
    if (value[i] != '%') {
      out.push_back(value[i]);
      continue;
    }
    if (i + 2 >= value.size()) return std::nullopt;
    const int hi = hex_value(value[i + 1]), lo = hex_value(value[i + 2]);
    if (hi < 0 || lo < 0) return std::nullopt;
    out.push_back(static_cast<char>(hi * 16 + lo));
    i += 2;
  }
  return out;
}

MultipartError bad_header(std::string detail) { return {MultipartErrorKind::bad_part_header, std::move(detail)}; }

std::optional<MultipartError> parse_disposition(std::string_view value, PartHeaders& out) {
  Params params;
  auto type = parse_params(value, params);
  if (!type) return bad_header("Content-Disposition does not parse");
  if (*type != "form-data") return bad_header("Content-Disposition is not form-data");
  if (const auto* name = find_param(params, "name")) out.name = *name;
  if (const auto* filename = find_param(params, "filename")) out.filename = *filename;
  if (const auto* ext = find_param(params, "filename*")) {
    auto decoded = decode_ext_value(*ext);
    if (!decoded) return bad_header("filename* is not UTF-8'' percent-encoded");
    out.filename = std::move(*decoded);  // RFC 6266 4.3: the extended form wins
  }
  return std::nullopt;
}

// Media types are ASCII; anything else would reach logs and JSON as it came.
bool is_ascii_header_value(std::string_view value) noexcept {
  return std::all_of(value.begin(), value.end(), [](char c) {
    const auto b = static_cast<unsigned char>(c);
    return b == '\t' || (b >= 0x20 && b < 0x7F);
  });
}

}  // namespace

std::optional<MultipartError> parse_part_headers(std::string_view block, PartHeaders& out) {
  bool have_disposition = false;
  while (!block.empty()) {
    const auto end = block.find("\r\n");
    std::string_view line = block.substr(0, end);
    block = end == std::string_view::npos ? std::string_view{} : block.substr(end + 2);
    if (line.find_first_of("\r\n") != std::string_view::npos) return bad_header("bare CR or LF in a header");
    if (line.empty() || line.front() == ' ' || line.front() == '\t') return bad_header("folded or empty header line");
    const auto colon = line.find(':');
    if (colon == std::string_view::npos) return bad_header("header line without a colon");
    const std::string_view name = line.substr(0, colon);
    if (!std::all_of(name.begin(), name.end(), is_tchar) || name.empty()) return bad_header("bad header name");
    std::string_view value = line.substr(colon + 1);
    skip_ows(value);
    while (!value.empty() && (value.back() == ' ' || value.back() == '\t')) value.remove_suffix(1);
    if (iequals(name, "content-disposition")) {
      if (have_disposition) return bad_header("Content-Disposition twice");
      have_disposition = true;
      if (auto error = parse_disposition(value, out)) return error;
    } else if (iequals(name, "content-type")) {
      if (out.content_type) return bad_header("Content-Type twice");
      if (value.empty() || !is_ascii_header_value(value)) return bad_header("bad Content-Type");
      out.content_type = std::string(value);
    }
  }
  if (out.name.empty()) return MultipartError{MultipartErrorKind::missing_name, "part without a name"};
  return std::nullopt;
}

bool is_valid_boundary(std::string_view boundary) noexcept {
  // bchars (RFC 2046 5.1.1): DIGIT ALPHA ' ( ) + _ , - . / : = ? and space, not last.
  constexpr std::string_view kOther = "'()+_,-./:=? ";
  if (boundary.empty() || boundary.size() > 70 || boundary.back() == ' ') return false;
  return std::all_of(boundary.begin(), boundary.end(), [&](char c) {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
           kOther.find(c) != std::string_view::npos;
  });
}

}  // namespace multipart_detail

std::optional<std::string> multipart_boundary(std::string_view content_type) {
  multipart_detail::Params params;
  auto type = multipart_detail::parse_params(content_type, params);
  if (!type || *type != "multipart/form-data") return std::nullopt;
  const auto* boundary = multipart_detail::find_param(params, "boundary");
  if (boundary == nullptr || !multipart_detail::is_valid_boundary(*boundary)) return std::nullopt;
  return *boundary;
}

}  // namespace mediagen::http
