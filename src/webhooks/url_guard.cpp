#include "mediagen/webhooks/url_guard.hpp"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>

#include <algorithm>
#include <array>
#include <charconv>
#include <cstring>

#include <boost/url/parse.hpp>
#include <boost/url/url_view.hpp>

#include "mediagen/core/ascii.hpp"

namespace mediagen::webhooks {
namespace {

bool name_char(char c) {
  return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '-' || c == '.';
}

// A host name as DNS knows it: letters, digits, hyphens and dots, lowercase, no trailing dot.
std::optional<std::string> clean_name(std::string_view raw) {
  std::string name = ascii_lower(raw);
  if (!name.empty() && name.back() == '.') name.pop_back();
  if (name.empty() || name.size() > 253) return std::nullopt;
  if (!std::all_of(name.begin(), name.end(), name_char)) return std::nullopt;
  if (name.front() == '.' || name.find("..") != std::string::npos) return std::nullopt;
  return name;
}

// RFC 3986's unreserved and reserved characters, and '%'.
bool uri_char(char c) {
  if ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9')) return true;
  return std::string_view("-._~:/?#[]@!$&'()*+,;=%").find(c) != std::string_view::npos;
}

bool is_localhost(std::string_view name) {
  constexpr std::string_view kSuffix = ".localhost";
  return name == "localhost" ||
         (name.size() > kSuffix.size() && name.substr(name.size() - kSuffix.size()) == kSuffix);
}

bool refused_v4(const unsigned char* b) {
  const std::uint32_t a = (std::uint32_t{b[0]} << 24) | (std::uint32_t{b[1]} << 16) | (std::uint32_t{b[2]} << 8) | b[3];
  auto in = [a](std::uint32_t net, int bits) { return bits == 0 || (a >> (32 - bits)) == (net >> (32 - bits)); };
  return in(0x00000000, 8)        // "this network", 0.0.0.0
         || in(0x0A000000, 8)     // 10/8
         || in(0x64400000, 10)    // 100.64/10, shared (carrier NAT)
         || in(0x7F000000, 8)     // loopback
         || in(0xA9FE0000, 16)    // link-local (cloud metadata lives here)
         || in(0xAC100000, 12)    // 172.16/12
         || in(0xC0000000, 24)    // 192.0.0/24, protocol assignments
         || in(0xC0A80000, 16)    // 192.168/16
         || in(0xC6120000, 15)    // 198.18/15, benchmarking
         || in(0xE0000000, 4)     // multicast
         || in(0xF0000000, 4);    // reserved and broadcast
}

bool refused_v6(const unsigned char* b) {
  static constexpr std::array<unsigned char, 12> kMapped{0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff};
  static constexpr std::array<unsigned char, 12> kNat64{0x00, 0x64, 0xff, 0x9b, 0, 0, 0, 0, 0, 0, 0, 0};
  if (std::memcmp(b, kMapped.data(), 12) == 0 || std::memcmp(b, kNat64.data(), 12) == 0) return refused_v4(b + 12);
  bool leading_zero = true;  // ::, ::1 and the deprecated IPv4-compatible ::a.b.c.d
  for (int i = 0; i < 12; ++i) leading_zero = leading_zero && b[i] == 0;
  if (leading_zero) return true;
  if (b[0] == 0xff) return true;                          // multicast
  if (b[0] == 0xfe && (b[1] & 0xc0) == 0x80) return true;  // link-local fe80::/10
  if (b[0] == 0xfe && (b[1] & 0xc0) == 0xc0) return true;  // site-local fec0::/10 (deprecated)
  if ((b[0] & 0xfe) == 0xfc) return true;                  // unique local fc00::/7
  if (b[0] == 0x20 && b[1] == 0x01 && b[2] == 0x0d && b[3] == 0xb8) return true;  // documentation
  return false;
}

}  // namespace

namespace {

struct Parsed {
  WebhookUrl url;
  bool refused_host = false;  // a loopback, private, ... address, or localhost
};

// The URL read, before the allow list is consulted; nullopt: malformed; a scheme refusal is
// reported through `scheme_refused`.
std::optional<Parsed> read_url(std::string_view text, bool& scheme_refused) {
  if (text.empty() || text.size() > kMaxUrlBytes) return std::nullopt;
  // Only the characters RFC 3986 lets a URL hold (other text is percent-encoded, names punycoded),
  // and only http(s) with an authority. Both are checked before Boost.URL 1.81 sees the text: it
  // asserts, instead of refusing, on some characters in a path without an authority ("p:\"").
  if (!std::all_of(text.begin(), text.end(), uri_char)) return std::nullopt;
  const std::string head = ascii_lower(text.substr(0, 8));
  if (head.rfind("http://", 0) != 0 && head.rfind("https://", 0) != 0) {
    scheme_refused = text.find(':') != std::string_view::npos;
    return std::nullopt;
  }
  const auto parsed = boost::urls::parse_absolute_uri(text);
  if (!parsed) return std::nullopt;
  const boost::urls::url_view& u = *parsed;
  const auto scheme = u.scheme_id();
  if (scheme != boost::urls::scheme::http && scheme != boost::urls::scheme::https) {
    scheme_refused = true;
    return std::nullopt;
  }
  // Credentials in a URL end up in logs and delivery records; the signature is the receiver's
  // proof of the sender.
  if (!u.has_authority() || u.has_userinfo()) return std::nullopt;
  WebhookUrl url{.url = std::string(text), .https = scheme == boost::urls::scheme::https};
  url.port = url.https ? 443 : 80;
  if (u.has_port()) {
    const auto port = u.port();
    unsigned value = 0;
    const auto [end, ec] = std::from_chars(port.data(), port.data() + port.size(), value);
    if (port.empty() || ec != std::errc{} || end != port.data() + port.size() || value == 0 || value > 65535) {
      return std::nullopt;
    }
    url.port = static_cast<std::uint16_t>(value);
  }
  bool refused = false;
  switch (u.host_type()) {
    case boost::urls::host_type::ipv4: {
      const auto bytes = u.host_ipv4_address().to_bytes();
      url.host = u.host_ipv4_address().to_string();
      url.literal_ip = true;
      refused = refused_v4(bytes.data());
      break;
    }
    case boost::urls::host_type::ipv6: {
      const auto bytes = u.host_ipv6_address().to_bytes();
      url.host = u.host_ipv6_address().to_string();
      url.literal_ip = true;
      refused = refused_v6(bytes.data());
      break;
    }
    case boost::urls::host_type::name: {
      if (u.encoded_host().find('%') != boost::urls::pct_string_view::npos) return std::nullopt;
      auto name = clean_name(u.encoded_host());
      if (!name) return std::nullopt;
      url.host = std::move(*name);
      // inet_aton's forms (127.1, 2130706433, 0x7f.1) name an address, whatever RFC 3986 says.
      in_addr v4{};
      if (inet_aton(url.host.c_str(), &v4) != 0) {
        url.literal_ip = true;
        refused = refused_v4(reinterpret_cast<const unsigned char*>(&v4.s_addr));
      } else {
        refused = is_localhost(url.host);
      }
      break;
    }
    default: return std::nullopt;
  }
  return Parsed{std::move(url), refused};
}

}  // namespace

AllowList AllowList::parse(std::string_view text, std::vector<std::string>* rejected) {
  AllowList out;
  while (!text.empty()) {
    const auto comma = text.find(',');
    std::string_view item = text.substr(0, comma);
    text = comma == std::string_view::npos ? std::string_view{} : text.substr(comma + 1);
    while (!item.empty() && item.front() == ' ') item.remove_prefix(1);
    while (!item.empty() && item.back() == ' ') item.remove_suffix(1);
    if (item.empty()) continue;
    // Read it as the authority of a URL: the same rules as the URLs it is compared with.
    bool scheme_refused = false;
    const auto probe = read_url("https://" + std::string(item) + "/", scheme_refused);
    const bool has_port = item.back() != ']' && item.rfind(':') != std::string_view::npos &&
                          (item.front() != '[' || item.rfind(']') < item.rfind(':'));
    const bool host_only = item.find_first_of("/?#@") == std::string_view::npos;
    if (!probe || !host_only) {
      if (rejected) rejected->emplace_back(item);
      continue;
    }
    out.entries_.push_back({probe->url.host, has_port ? std::optional(probe->url.port) : std::nullopt});
  }
  return out;
}

bool AllowList::allows(std::string_view host, std::uint16_t port) const {
  return std::any_of(entries_.begin(), entries_.end(),
                     [&](const Entry& e) { return e.host == host && (!e.port || *e.port == port); });
}

UrlCheck check_url(std::string_view text, const AllowList& allow) {
  bool scheme_refused = false;
  auto parsed = read_url(text, scheme_refused);
  if (!parsed) return {.refusal = scheme_refused ? UrlRefusal::scheme : UrlRefusal::malformed};
  WebhookUrl& url = parsed->url;
  url.allowed = allow.allows(url.host, url.port);
  if (!url.https && !url.allowed) return {.refusal = UrlRefusal::scheme};
  if (parsed->refused_host && !url.allowed) return {.refusal = UrlRefusal::address};
  return {.url = std::move(url)};
}

bool refused_address(int family, const unsigned char* bytes) {
  if (family == AF_INET) return refused_v4(bytes);
  if (family == AF_INET6) return refused_v6(bytes);
  return true;
}

bool refused_address(const sockaddr* address) {
  if (address == nullptr) return true;
  if (address->sa_family == AF_INET) {
    sockaddr_in v4{};
    std::memcpy(&v4, address, sizeof v4);
    return refused_v4(reinterpret_cast<const unsigned char*>(&v4.sin_addr.s_addr));
  }
  if (address->sa_family == AF_INET6) {
    sockaddr_in6 v6{};
    std::memcpy(&v6, address, sizeof v6);
    return refused_v6(v6.sin6_addr.s6_addr);
  }
  return true;
}

}  // namespace mediagen::webhooks
