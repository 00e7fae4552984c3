#pragma once
// Where webhook deliveries may go (openapi: "Webhooks", "Where deliveries may go"): an absolute
// https URL, or http to a host the operator allowed (MEDIAGEN_WEBHOOK_ALLOW_HOSTS), and never an
// address on this machine or its networks unless that host is allowed. The URL is checked when it
// is given; the address is checked again when a delivery connects (the address actually
// connected, so a name that resolves elsewhere later gains nothing). Pure functions: fuzzed.
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

struct sockaddr;

namespace mediagen::webhooks {

inline constexpr std::size_t kMaxUrlBytes = 2048;

// MEDIAGEN_WEBHOOK_ALLOW_HOSTS: comma-separated `host` or `host:port` (an IPv6 address in
// brackets). A host alone allows every port.
class AllowList {
 public:
  AllowList() = default;
  // Entries that do not read as a host are skipped (the caller logs `rejected`).
  static AllowList parse(std::string_view text, std::vector<std::string>* rejected = nullptr);
  // `host` lowercase, IPv6 without brackets.
  bool allows(std::string_view host, std::uint16_t port) const;
  bool empty() const noexcept { return entries_.empty(); }

 private:
  struct Entry {
    std::string host;
    std::optional<std::uint16_t> port;
  };
  std::vector<Entry> entries_;
};

enum class UrlRefusal {
  malformed,   // not an absolute http(s) URL with a host, or over kMaxUrlBytes, or with user info
  scheme,      // not https, and not http to an allowed host
  address,     // a literal address (or `localhost`) that is loopback, private, ... and not allowed
};

struct WebhookUrl {
  std::string url;      // as given
  std::string host;     // lowercase; IPv6 without brackets
  std::uint16_t port = 0;
  bool https = false;
  bool allowed = false;      // the host is in the allow list: any address is fine
  bool literal_ip = false;   // the host is an address, not a name
};

struct UrlCheck {
  std::optional<WebhookUrl> url;
  std::optional<UrlRefusal> refusal;
};

// The URL as a delivery target. Names are not resolved here (see refused_address).
UrlCheck check_url(std::string_view text, const AllowList& allow);

// An address deliveries never go to unless their host is allowed: loopback, private (RFC 1918,
// unique local, shared 100.64/10), link-local, multicast, unspecified, broadcast, reserved, and
// IPv4-mapped or NAT64 forms of those. `family` AF_INET with 4 bytes or AF_INET6 with 16.
bool refused_address(int family, const unsigned char* bytes);
// The same for a socket address (as curl and getaddrinfo give it); anything but IPv4 and IPv6 is
// refused.
bool refused_address(const sockaddr* address);

// Whether a name resolves (through the system resolver, which bounds its own wait) to an address
// deliveries may not go to. Blocks: call it on the blocking pool. A name that does not resolve
// now is not refused here; its deliveries fail and are retried.
bool resolves_to_refused(const WebhookUrl& url);

}  // namespace mediagen::webhooks
