#include <algorithm>

#include "mediagen/core/percent.hpp"
#include "mediagen/http/pipeline.hpp"
#include "stages.hpp"

namespace mediagen::http {

std::string resolve_client_ip(std::string_view peer, std::optional<std::string_view> xff,
                              const std::vector<std::string>& trusted_proxies) {
  if (peer.substr(0, 7) == "::ffff:") peer.remove_prefix(7);  // IPv4-mapped IPv6
  if (trusted_proxies.empty() ||
      std::find(trusted_proxies.begin(), trusted_proxies.end(), peer) == trusted_proxies.end()) {
    return std::string(peer);
  }
  if (!xff) return std::string(peer);
  std::string_view first = xff->substr(0, xff->find(','));
  while (!first.empty() && first.front() == ' ') first.remove_prefix(1);
  while (!first.empty() && first.back() == ' ') first.remove_suffix(1);
  // Only an address-looking value is believed; anything else falls back to the proxy itself.
  if (first.empty() || first.size() > 45 ||
      !std::all_of(first.begin(), first.end(), [](char c) {
        return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F') || c == '.' || c == ':';
      })) {
    return std::string(peer);
  }
  return std::string(first);
}

namespace stages {

std::string client_ip(const Exchange& exchange, const std::vector<std::string>& trusted_proxies) {
  return resolve_client_ip(exchange.peer_ip(), exchange.request().header("X-Forwarded-For"), trusted_proxies);
}

void split_target(std::string_view target, std::string& path, std::string_view& query) {
  auto q = target.find('?');
  std::string_view raw = target.substr(0, q);
  query = q == std::string_view::npos ? std::string_view{} : target.substr(q + 1);
  path = percent_decode(raw, /*plus_is_space=*/false);
}

}  // namespace stages
}  // namespace mediagen::http
