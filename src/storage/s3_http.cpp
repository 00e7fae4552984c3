#include "s3_http.hpp"

#include <algorithm>
#include <charconv>
#include <cstring>
#include <memory>

namespace mediagen::storage::s3 {
namespace {

struct Transfer {
  std::string_view to_send;
  HttpResponse response;
  std::size_t max_body = 0;
  bool too_large = false;
};

std::size_t on_body(char* data, std::size_t size, std::size_t count, void* user) {
  auto& t = *static_cast<Transfer*>(user);
  const std::size_t n = size * count;
  if (t.response.body.size() + n > t.max_body) {
    t.too_large = true;
    return 0;  // curl ends the transfer with CURLE_WRITE_ERROR
  }
  t.response.body.append(data, n);
  return n;
}

std::size_t on_read(char* buffer, std::size_t size, std::size_t count, void* user) {
  auto& t = *static_cast<Transfer*>(user);
  const std::size_t n = std::min(size * count, t.to_send.size());
  std::memcpy(buffer, t.to_send.data(), n);
  t.to_send.remove_prefix(n);
  return n;
}

bool header_is(std::string_view line, std::string_view name) {
  if (line.size() <= name.size() || line[name.size()] != ':') return false;
  for (std::size_t i = 0; i < name.size(); ++i) {
    const char c = line[i] >= 'A' && line[i] <= 'Z' ? static_cast<char>(line[i] - 'A' + 'a') : line[i];
    if (c != name[i]) return false;
  }
  return true;
}

std::string_view header_value(std::string_view line, std::size_t name_size) {
  line.remove_prefix(name_size + 1);
  while (!line.empty() && (line.front() == ' ' || line.front() == '\t')) line.remove_prefix(1);
  while (!line.empty() && (line.back() == '\r' || line.back() == '\n' || line.back() == ' ')) line.remove_suffix(1);
  return line;
}

std::size_t on_header(char* data, std::size_t size, std::size_t count, void* user) {
  auto& r = static_cast<Transfer*>(user)->response;
  const std::size_t n = size * count;
  const std::string_view line(data, n);
  if (header_is(line, "etag")) {
    r.etag = std::string(header_value(line, 4)).substr(0, 256);
  } else if (header_is(line, "content-length")) {
    const std::string_view v = header_value(line, 14);
    std::uint64_t length = 0;
    auto [ptr, ec] = std::from_chars(v.data(), v.data() + v.size(), length);
    if (ec == std::errc{} && ptr == v.data() + v.size()) r.content_length = length;
  }
  return n;
}


void set_method(CURL* c, const HttpRequest& request, Transfer& t) {
  if (request.method == "HEAD") {
    curl_easy_setopt(c, CURLOPT_NOBODY, 1L);
  } else if (request.method == "PUT") {
    curl_easy_setopt(c, CURLOPT_UPLOAD, 1L);
    curl_easy_setopt(c, CURLOPT_READFUNCTION, on_read);
    curl_easy_setopt(c, CURLOPT_READDATA, &t);
    curl_easy_setopt(c, CURLOPT_INFILESIZE_LARGE, static_cast<curl_off_t>(request.body.size()));
  } else if (request.method == "POST") {
    curl_easy_setopt(c, CURLOPT_POST, 1L);
    curl_easy_setopt(c, CURLOPT_POSTFIELDS, request.body.data());
    curl_easy_setopt(c, CURLOPT_POSTFIELDSIZE_LARGE, static_cast<curl_off_t>(request.body.size()));
  } else if (request.method == "DELETE") {
    curl_easy_setopt(c, CURLOPT_CUSTOMREQUEST, "DELETE");
  } else {
    curl_easy_setopt(c, CURLOPT_HTTPGET, 1L);
  }
}

}  // namespace

boost::system::result<HttpResponse, TransportError> exchange(const HttpRequest& request, const HttpLimits& limits) {
  libcurl::ensure_initialised();
  libcurl::Easy curl(curl_easy_init());
  if (!curl) return TransportError{TransportKind::other, "curl_easy_init failed"};
  libcurl::List headers;
  // No "Expect: 100-continue" round trip: the part is already in memory.
  std::vector<std::string> lines = request.headers;
  lines.emplace_back("Expect:");
  for (const auto& h : lines) {
    curl_slist* grown = curl_slist_append(headers.get(), h.c_str());
    if (!grown) return TransportError{TransportKind::other, "out of memory for headers"};
    (void)headers.release();
    headers.reset(grown);
  }
  Transfer t{.to_send = request.body, .response = {}, .max_body = request.max_body};
  CURL* c = curl.get();
  curl_easy_setopt(c, CURLOPT_URL, request.url.c_str());
  curl_easy_setopt(c, CURLOPT_PROTOCOLS_STR, "http,https");
  curl_easy_setopt(c, CURLOPT_FOLLOWLOCATION, 0L);
  curl_easy_setopt(c, CURLOPT_NOSIGNAL, 1L);  // worker threads: no SIGALRM for timeouts
  curl_easy_setopt(c, CURLOPT_CONNECTTIMEOUT_MS, static_cast<long>(limits.connect_timeout.count()));
  curl_easy_setopt(c, CURLOPT_TIMEOUT_MS, static_cast<long>(limits.total_timeout.count()));
  curl_easy_setopt(c, CURLOPT_LOW_SPEED_LIMIT, 1L);
  curl_easy_setopt(c, CURLOPT_LOW_SPEED_TIME, std::max(1L, static_cast<long>(limits.stall_timeout.count())));
  curl_easy_setopt(c, CURLOPT_HTTPHEADER, headers.get());
  curl_easy_setopt(c, CURLOPT_WRITEFUNCTION, on_body);
  curl_easy_setopt(c, CURLOPT_WRITEDATA, &t);
  curl_easy_setopt(c, CURLOPT_HEADERFUNCTION, on_header);
  curl_easy_setopt(c, CURLOPT_HEADERDATA, &t);
  set_method(c, request, t);
  const CURLcode rc = curl_easy_perform(c);
  if (rc != CURLE_OK) {
    const TransportKind kind = libcurl::transport_kind(rc, t.too_large);
    return TransportError{kind, kind == TransportKind::too_large ? "the answer is larger than asked for"
                                                                 : std::string(curl_easy_strerror(rc))};
  }
  curl_easy_getinfo(c, CURLINFO_RESPONSE_CODE, &t.response.status);
  return std::move(t.response);
}

}  // namespace mediagen::storage::s3
