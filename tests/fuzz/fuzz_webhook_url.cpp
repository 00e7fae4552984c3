// The webhook URL guard (webhooks/url_guard.hpp). Input: line 1 a URL, line 2 (optional) an
// allow list. Properties:
//   - check_url and AllowList::parse never crash;
//   - an accepted URL is at most kMaxUrlBytes, has a host, and is https unless its host is allowed;
//   - without an allow list, an accepted literal address is one deliveries may go to;
//   - allowing hosts only widens: what is accepted without the list is accepted with it;
//   - an IPv4-mapped IPv6 address is judged as the IPv4 address it maps.
#include <sys/socket.h>

#include <array>
#include <cstring>
#include <string>

#include "fuzz_support.hpp"
#include "mediagen/webhooks/url_guard.hpp"

namespace {

using namespace mediagen::webhooks;

void check_addresses(const std::uint8_t* data, std::size_t size) {
  if (size < 4) return;
  std::array<unsigned char, 16> mapped{};
  mapped[10] = 0xff;
  mapped[11] = 0xff;
  std::memcpy(mapped.data() + 12, data, 4);
  FUZZ_CHECK(refused_address(AF_INET, data) == refused_address(AF_INET6, mapped.data()));
  if (size >= 16) (void)refused_address(AF_INET6, data);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  mediagen::fuzz::Lines lines{mediagen::fuzz::as_text(data, size)};
  std::string_view url, allow_text;
  lines.next(url);
  lines.next(allow_text);
  const AllowList none;
  const AllowList allow = AllowList::parse(allow_text);

  const auto plain = check_url(url, none);
  FUZZ_CHECK(plain.url.has_value() != plain.refusal.has_value());
  if (plain.url) {
    FUZZ_CHECK(url.size() <= kMaxUrlBytes);
    FUZZ_CHECK(!plain.url->host.empty());
    FUZZ_CHECK(plain.url->https);
    FUZZ_CHECK(!plain.url->allowed);
    FUZZ_CHECK(plain.url->port != 0);
  }
  const auto widened = check_url(url, allow);
  FUZZ_CHECK(!plain.url || widened.url);
  if (widened.url) FUZZ_CHECK(widened.url->https || widened.url->allowed);
  check_addresses(data, size);
  return 0;
}
