// The creation-time check of a webhook's host name (url_guard.hpp). The delivery checks again,
// at the address it connects to.
#include <netdb.h>
#include <sys/socket.h>

#include <memory>

#include "mediagen/webhooks/url_guard.hpp"

namespace mediagen::webhooks {

bool resolves_to_refused(const WebhookUrl& url) {
  addrinfo hints{};
  hints.ai_family = AF_UNSPEC;
  hints.ai_socktype = SOCK_STREAM;
  addrinfo* found = nullptr;
  if (getaddrinfo(url.host.c_str(), nullptr, &hints, &found) != 0 || found == nullptr) return false;
  std::unique_ptr<addrinfo, decltype(&freeaddrinfo)> owned(found, &freeaddrinfo);
  for (const addrinfo* a = found; a != nullptr; a = a->ai_next) {
    if (refused_address(a->ai_addr)) return true;
  }
  return false;
}

}  // namespace mediagen::webhooks
