#pragma once
// One HTTP exchange with an S3 endpoint over libcurl: blocking, on the caller's thread (a worker
// or a read-pool thread), bounded in time (connect and total timeouts) and in the size of the
// answer read. No redirects are followed; only http and https are spoken. Like the upstream
// engines' client (engines/upstream_http), but S3 needs PUT, HEAD and DELETE, a request body
// sent from memory and the ETag of the answer, and the storage layer sits below the engines.
#include <chrono>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <boost/system/result.hpp>

#include "mediagen/core/curl_easy.hpp"

namespace mediagen::storage::s3 {

struct HttpRequest {
  std::string method;                // GET, HEAD, PUT, POST, DELETE
  std::string url;
  std::vector<std::string> headers;  // "Name: value", the signature's among them
  std::string_view body;             // PUT and POST
  std::size_t max_body = 1024 * 1024;  // more than this in the answer fails the exchange
};

struct HttpResponse {
  long status = 0;
  std::string body;
  std::string etag;  // as sent, quotes included
  std::optional<std::uint64_t> content_length;
};

using TransportKind = libcurl::TransportKind;

struct TransportError {
  TransportKind kind = TransportKind::other;
  std::string detail;  // curl's words; never a header, so never a signature
};

struct HttpLimits {
  std::chrono::milliseconds connect_timeout{3000};
  std::chrono::milliseconds total_timeout{60000};
  // A transfer that moves no byte for this long is given up (a stopped or wedged server), long
  // before the total timeout a large part needs. Whole seconds, at least one.
  std::chrono::seconds stall_timeout{10};
};

boost::system::result<HttpResponse, TransportError> exchange(const HttpRequest& request, const HttpLimits& limits);

}  // namespace mediagen::storage::s3
