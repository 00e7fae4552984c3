#include <algorithm>

#include "mediagen/core/percent.hpp"
#include "mediagen/http/pipeline.hpp"
#include "stages.hpp"

namespace mediagen::http {

namespace {

std::string_view trimmed(std::string_view s) {
  while (!s.empty() && s.front() == ' ') s.remove_prefix(1);
  while (!s.empty() && s.back() == ' ') s.remove_suffix(1);
  return s;
}

std::string_view unmapped(std::string_view ip) {
  if (ip.starts_with("::ffff:")) ip.remove_prefix(7);  // IPv4-mapped IPv6
  return ip;
}

bool looks_like_address(std::string_view s) {
  return !s.empty() && s.size() <= 45 && std::all_of(s.begin(), s.end(), [](char c) {
    return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F') || c == '.' || c == ':';
  });
}

bool is_trusted(std::string_view ip, const std::vector<std::string>& trusted_proxies) {
  return std::find(trusted_proxies.begin(), trusted_proxies.end(), ip) != trusted_proxies.end();
}

}  // namespace

std::string resolve_client_ip(std::string_view peer, std::optional<std::string_view> xff,
                              const std::vector<std::string>& trusted_proxies) {
  peer = unmapped(peer);
  if (!xff || !is_trusted(peer, trusted_proxies)) return std::string(peer);
  // Each proxy appends the address it received the request from, so only the entries on the
  // right were written by proxies we trust; everything left of the first untrusted one may be
  // the client's own invention. Walk from the right past our proxies.
  std::string_view rest = *xff;
  std::string_view entry;
  while (true) {
    const auto comma = rest.rfind(',');
    entry = unmapped(trimmed(comma == std::string_view::npos ? rest : rest.substr(comma + 1)));
    // A value our own proxy wrote that is not an address: believe nothing further left.
    if (!looks_like_address(entry)) return std::string(peer);
    if (!is_trusted(entry, trusted_proxies) || comma == std::string_view::npos) break;
    rest = rest.substr(0, comma);
  }
  // The first untrusted entry from the right, or the leftmost when every entry is a proxy.
  return std::string(entry);
}

namespace stages {

std::string client_ip(const Exchange& exchange, const std::vector<std::string>& trusted_proxies) {
  // A proxy may append its own header line instead of extending the client's: the lines read
  // as one list, in order (RFC 9110 5.3).
  const auto lines = exchange.request().header_values("X-Forwarded-For");
  if (lines.empty()) return resolve_client_ip(exchange.peer_ip(), std::nullopt, trusted_proxies);
  return resolve_client_ip(exchange.peer_ip(), join_header_lines(lines), trusted_proxies);
}

void split_target(std::string_view target, std::string& path, std::string_view& query) {
  auto q = target.find('?');
  std::string_view raw = target.substr(0, q);
  query = q == std::string_view::npos ? std::string_view{} : target.substr(q + 1);
  path = percent_decode(raw, /*plus_is_space=*/false);
}

}  // namespace stages
}  // namespace mediagen::http
