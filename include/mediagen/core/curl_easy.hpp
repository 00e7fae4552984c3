#pragma once
// What the libcurl clients (the upstream engines, the S3 store) share: owned handles, one global
// initialisation for the process, and one reading of why a transfer failed. Header-only: only
// libraries that link libcurl include it.
#include <curl/curl.h>

#include <memory>
#include <mutex>

namespace mediagen::libcurl {

struct EasyDeleter {
  void operator()(CURL* c) const { curl_easy_cleanup(c); }
};
struct ListDeleter {
  void operator()(curl_slist* l) const { curl_slist_free_all(l); }
};
using Easy = std::unique_ptr<CURL, EasyDeleter>;
using List = std::unique_ptr<curl_slist, ListDeleter>;

// Once per process, before the first handle: curl_global_init is not to race itself.
inline void ensure_initialised() {
  static std::once_flag once;
  std::call_once(once, [] { curl_global_init(CURL_GLOBAL_DEFAULT); });
}

enum class TransportKind { timeout, connect, reset, too_large, other };

// too_large: the body callback refused more than its cap (curl then reports a write error).
inline TransportKind transport_kind(CURLcode code, bool too_large) noexcept {
  if (too_large) return TransportKind::too_large;
  switch (code) {
    case CURLE_OPERATION_TIMEDOUT: return TransportKind::timeout;
    case CURLE_COULDNT_CONNECT:
    case CURLE_COULDNT_RESOLVE_HOST: return TransportKind::connect;
    case CURLE_RECV_ERROR:
    case CURLE_SEND_ERROR:
    case CURLE_GOT_NOTHING:
    case CURLE_PARTIAL_FILE: return TransportKind::reset;
    default: return TransportKind::other;
  }
}

}  // namespace mediagen::libcurl
