#include "upstream_http.hpp"

#include "mediagen/core/curl_easy.hpp"

#include <memory>

namespace mediagen::engines::upstream_detail {
namespace {

struct Received {
  std::string body;
  std::size_t max_bytes = 0;
  bool too_large = false;
  std::optional<long> retry_after;
};

std::size_t on_body(char* data, std::size_t size, std::size_t count, void* user) {
  auto& r = *static_cast<Received*>(user);
  const std::size_t n = size * count;
  if (r.body.size() + n > r.max_bytes) {
    r.too_large = true;
    return 0;  // curl ends the transfer with CURLE_WRITE_ERROR
  }
  r.body.append(data, n);
  return n;
}

char lower(char c) { return c >= 'A' && c <= 'Z' ? static_cast<char>(c - 'A' + 'a') : c; }

std::size_t on_header(char* data, std::size_t size, std::size_t count, void* user) {
  const std::size_t n = size * count;
  const std::string_view line(data, n);
  constexpr std::string_view name = "retry-after:";
  if (line.size() > name.size()) {
    bool match = true;
    for (std::size_t i = 0; i < name.size() && match; ++i) match = lower(line[i]) == name[i];
    if (match) static_cast<Received*>(user)->retry_after = parse_retry_after(line.substr(name.size()));
  }
  return n;
}

// libcurl asks this about once a second and on every piece: a nonzero answer abandons the
// transfer, so a stopping server does not wait out an upstream's total timeout.
int on_progress(void* user, curl_off_t, curl_off_t, curl_off_t, curl_off_t) {
  return static_cast<const std::atomic<bool>*>(user)->load() ? 1 : 0;
}

}  // namespace

void ensure_curl() { libcurl::ensure_initialised(); }

std::optional<long> parse_retry_after(std::string_view value) {
  while (!value.empty() && (value.front() == ' ' || value.front() == '\t')) value.remove_prefix(1);
  while (!value.empty() && (value.back() == '\r' || value.back() == '\n' || value.back() == ' ')) value.remove_suffix(1);
  if (value.empty() || value.size() > 9) return std::nullopt;
  long seconds = 0;
  for (const char c : value) {
    if (c < '0' || c > '9') return std::nullopt;
    seconds = seconds * 10 + (c - '0');
  }
  return seconds;
}

boost::system::result<HttpAnswer, TransportError> http_exchange(const HttpCall& call, const HttpLimits& limits) {
  ensure_curl();
  libcurl::Easy curl(curl_easy_init());
  if (!curl) return TransportError{TransportKind::other, "curl_easy_init failed"};
  libcurl::List headers;
  for (const auto& h : call.headers) {
    curl_slist* grown = curl_slist_append(headers.get(), h.c_str());
    if (!grown) return TransportError{TransportKind::other, "out of memory for headers"};
    (void)headers.release();
    headers.reset(grown);
  }
  Received received;
  received.max_bytes = limits.max_bytes;
  CURL* c = curl.get();
  curl_easy_setopt(c, CURLOPT_URL, call.url.c_str());
  curl_easy_setopt(c, CURLOPT_PROTOCOLS_STR, "http,https");
  curl_easy_setopt(c, CURLOPT_FOLLOWLOCATION, 0L);
  curl_easy_setopt(c, CURLOPT_NOSIGNAL, 1L);  // worker threads: no SIGALRM for timeouts
  curl_easy_setopt(c, CURLOPT_CONNECTTIMEOUT_MS, static_cast<long>(limits.connect_timeout.count()));
  curl_easy_setopt(c, CURLOPT_TIMEOUT_MS, static_cast<long>(limits.total_timeout.count()));
  curl_easy_setopt(c, CURLOPT_HTTPHEADER, headers.get());
  curl_easy_setopt(c, CURLOPT_WRITEFUNCTION, on_body);
  curl_easy_setopt(c, CURLOPT_WRITEDATA, &received);
  curl_easy_setopt(c, CURLOPT_HEADERFUNCTION, on_header);
  curl_easy_setopt(c, CURLOPT_HEADERDATA, &received);
  if (limits.stop) {
    curl_easy_setopt(c, CURLOPT_NOPROGRESS, 0L);
    curl_easy_setopt(c, CURLOPT_XFERINFOFUNCTION, on_progress);
    curl_easy_setopt(c, CURLOPT_XFERINFODATA, limits.stop);
  }
  if (call.method == "POST") {
    curl_easy_setopt(c, CURLOPT_POST, 1L);
    curl_easy_setopt(c, CURLOPT_POSTFIELDS, call.body.data());
    curl_easy_setopt(c, CURLOPT_POSTFIELDSIZE_LARGE, static_cast<curl_off_t>(call.body.size()));
  } else {
    curl_easy_setopt(c, CURLOPT_HTTPGET, 1L);
  }
  const CURLcode rc = curl_easy_perform(c);
  if (rc != CURLE_OK) return TransportError{libcurl::transport_kind(rc, received.too_large), curl_easy_strerror(rc)};
  HttpAnswer answer;
  curl_easy_getinfo(c, CURLINFO_RESPONSE_CODE, &answer.status);
  char* type = nullptr;
  if (curl_easy_getinfo(c, CURLINFO_CONTENT_TYPE, &type) == CURLE_OK && type) answer.content_type = type;
  answer.body = std::move(received.body);
  answer.retry_after_seconds = received.retry_after;
  return answer;
}

}  // namespace mediagen::engines::upstream_detail
