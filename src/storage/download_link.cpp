#include "download_link.hpp"

#include "mediagen/core/percent.hpp"

namespace mediagen::storage {
namespace {

// Up to 18 digits always fit in int64; links expire long before 10^18 seconds.
constexpr std::size_t kMaxExpiryDigits = 18;

std::optional<std::int64_t> parse_expiry(std::string_view text) {
  if (text.empty() || text.size() > kMaxExpiryDigits || (text.size() > 1 && text.front() == '0')) return std::nullopt;
  std::int64_t v = 0;
  for (char c : text) {
    if (c < '0' || c > '9') return std::nullopt;
    v = v * 10 + (c - '0');
  }
  return v;
}

}  // namespace

std::string link_url(std::string_view endpoint, const LinkClaims& claims, std::string_view signature) {
  std::string url(endpoint);
  url += "?path=";
  url += percent_encode(claims.key);
  url += "&expires=";
  url += std::to_string(claims.expires_at);
  url += claims.download ? "&download=1" : "&download=0";
  url += "&signature=";
  url += percent_encode(signature);
  return url;
}

std::optional<DownloadLink> parse_link_query(std::string_view query) {
  // Each parameter exactly once (with two, a cache or proxy in front might read the other one),
  // each value in its one canonical encoding: "%2f" for "%2F" or "%41" for "A" would decode to
  // the signed value, yet is not the link that was issued, so one flipped bit always fails.
  std::optional<std::string> path, expires, download, signature;
  bool valid = true;
  std::size_t i = 0;
  while (valid && i <= query.size()) {
    std::size_t end = query.find('&', i);
    if (end == std::string_view::npos) end = query.size();
    const std::string_view pair = query.substr(i, end - i);
    i = end + 1;
    const std::size_t eq = pair.find('=');
    if (eq == std::string_view::npos) continue;
    const std::string_view name = pair.substr(0, eq);
    const std::string_view raw = pair.substr(eq + 1);
    std::optional<std::string>* slot = name == "path"        ? &path
                                       : name == "expires"   ? &expires
                                       : name == "download"  ? &download
                                       : name == "signature" ? &signature
                                                             : nullptr;
    if (!slot) continue;  // unknown parameters are the client's business
    std::string value = percent_decode(raw, /*plus_is_space=*/false);
    valid = !*slot && percent_encode(value) == raw;
    *slot = std::move(value);
  }
  if (!valid || !path || !expires || !download || !signature) return std::nullopt;
  const auto expires_at = parse_expiry(*expires);
  if (!expires_at || (*download != "0" && *download != "1")) return std::nullopt;
  return DownloadLink{std::move(*path), *expires_at, *download == "1", std::move(*signature)};
}

}  // namespace mediagen::storage
