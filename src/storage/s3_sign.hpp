#pragma once
// AWS Signature Version 4 for S3 (header and query-string forms), computed with OpenSSL so that
// requests and presigned download URLs share one canonical form, checked against the examples
// AWS documents.
#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace mediagen::storage::s3 {

struct Credentials {
  std::string access_key;
  std::string secret_key;
  std::string region = "us-east-1";
};

using Params = std::vector<std::pair<std::string, std::string>>;

// One request as SigV4 sees it. `path` is the unencoded object path ("/bucket/key"); `query`
// holds raw names and values; `headers` are the signed ones, lower-case names, host included.
struct CanonicalInput {
  std::string method;
  std::string path;
  Params query;
  Params headers;
  std::string payload_hash;  // hex SHA-256 of the body, or "UNSIGNED-PAYLOAD"
  std::string amz_date;      // YYYYMMDDTHHMMSSZ
};

// RFC 3986 unreserved characters kept, everything else %XX (upper case); '/' kept when asked.
std::string uri_encode(std::string_view text, bool keep_slash);
std::string sha256_hex(std::string_view bytes);
// YYYYMMDDTHHMMSSZ of a Unix time.
std::string amz_date(std::int64_t unix_seconds);

std::string canonical_request(const CanonicalInput& in);
// The hex signature of a canonical request.
std::string signature(const Credentials& creds, const CanonicalInput& in);
// "AWS4-HMAC-SHA256 Credential=..., SignedHeaders=..., Signature=..."
std::string authorization(const Credentials& creds, const CanonicalInput& in);

// The query of a presigned GET: X-Amz-* parameters and the signature, encoded, after `extra`
// (e.g. response-content-disposition). `host` is the Host header the URL will be sent with.
std::string presign_query(const Credentials& creds, std::string_view host, std::string_view path, Params extra,
                          std::string_view amz_date, std::int64_t expires_seconds);

}  // namespace mediagen::storage::s3
