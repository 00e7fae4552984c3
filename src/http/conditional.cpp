#include "mediagen/http/conditional.hpp"

#include <cstddef>

namespace mediagen::http {
namespace {

bool is_blank(char c) { return c == ' ' || c == '\t'; }

}  // namespace

bool if_none_match(std::string_view header, std::string_view current_etag) {
  // The opaque part of ours, without its quotes.
  if (current_etag.size() < 2) return false;
  const std::string_view ours = current_etag.substr(1, current_etag.size() - 2);
  std::size_t i = 0;
  const std::size_t n = header.size();
  while (i < n) {
    while (i < n && (is_blank(header[i]) || header[i] == ',')) ++i;
    if (i == n) break;
    if (header[i] == '*') return true;
    if (header.compare(i, 2, "W/") == 0) i += 2;
    if (i >= n || header[i] != '"') return false;
    const auto close = header.find('"', i + 1);
    if (close == std::string_view::npos) return false;
    if (header.substr(i + 1, close - i - 1) == ours) return true;
    i = close + 1;
    while (i < n && is_blank(header[i])) ++i;
    if (i < n && header[i] != ',') return false;
  }
  return false;
}

}  // namespace mediagen::http
