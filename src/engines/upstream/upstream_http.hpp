#pragma once
// One HTTP exchange with an upstream over libcurl: blocking, on the caller's thread, bounded in
// time (connect and total timeouts) and in size (the answer's body). No redirects are followed
// and only http and https are spoken.
#include <atomic>
#include <chrono>
#include <optional>
#include <string>
#include <vector>

#include <boost/system/result.hpp>

#include "mediagen/core/curl_easy.hpp"

namespace mediagen::engines::upstream_detail {

struct HttpCall {
  std::string method = "POST";        // GET or POST
  std::string url;
  std::vector<std::string> headers;   // "Name: value"; the key's header among them
  std::string body;                   // POST only
};

struct HttpAnswer {
  long status = 0;
  std::string body;
  std::string content_type;
  std::optional<long> retry_after_seconds;  // a Retry-After of delta-seconds form
};

using TransportKind = libcurl::TransportKind;

struct TransportError {
  TransportKind kind = TransportKind::other;
  std::string detail;  // curl's words; holds no header, so no key
};

struct HttpLimits {
  std::chrono::milliseconds connect_timeout{5000};
  std::chrono::milliseconds total_timeout{120000};
  std::size_t max_bytes = 64 * 1024 * 1024;
  // When set and true, a transfer under way is abandoned (the server is stopping).
  const std::atomic<bool>* stop = nullptr;
};

// Initialises libcurl once per process (thread-safe).
void ensure_curl();

boost::system::result<HttpAnswer, TransportError> http_exchange(const HttpCall& call, const HttpLimits& limits);

// Retry-After of the delta-seconds form ("7"); nullopt for a date or anything else.
std::optional<long> parse_retry_after(std::string_view value);

}  // namespace mediagen::engines::upstream_detail
