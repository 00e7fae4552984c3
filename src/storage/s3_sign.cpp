#include "s3_sign.hpp"

#include <openssl/evp.h>
#include <openssl/hmac.h>

#include <algorithm>
#include <ctime>
#include <span>
#include <stdexcept>

#include "mediagen/core/crypto.hpp"

namespace mediagen::storage::s3 {
namespace {

std::string hmac(std::string_view key, std::string_view data) {
  unsigned char mac[EVP_MAX_MD_SIZE];
  unsigned int length = 0;
  if (!HMAC(EVP_sha256(), key.data(), static_cast<int>(key.size()), reinterpret_cast<const unsigned char*>(data.data()),
            data.size(), mac, &length)) {
    throw std::runtime_error("HMAC-SHA256 failed");
  }
  return std::string(reinterpret_cast<const char*>(mac), length);
}

std::string hex_of(std::string_view bytes) {
  return to_hex(std::span(reinterpret_cast<const std::uint8_t*>(bytes.data()), bytes.size()));
}

std::string canonical_query(Params query) {
  Params encoded;
  encoded.reserve(query.size());
  for (auto& [name, value] : query) encoded.emplace_back(uri_encode(name, false), uri_encode(value, false));
  std::sort(encoded.begin(), encoded.end());
  std::string out;
  for (const auto& [name, value] : encoded) {
    if (!out.empty()) out += '&';
    out += name + "=" + value;
  }
  return out;
}

std::string trimmed(std::string_view value) {
  while (!value.empty() && (value.front() == ' ' || value.front() == '\t')) value.remove_prefix(1);
  while (!value.empty() && (value.back() == ' ' || value.back() == '\t')) value.remove_suffix(1);
  return std::string(value);
}

Params sorted_headers(Params headers) {
  std::sort(headers.begin(), headers.end());
  return headers;
}

std::string signed_header_names(const Params& sorted) {
  std::string out;
  for (const auto& [name, value] : sorted) {
    if (!out.empty()) out += ';';
    out += name;
  }
  return out;
}

std::string scope(const Credentials& creds, std::string_view amz_date) {
  return std::string(amz_date.substr(0, 8)) + "/" + creds.region + "/s3/aws4_request";
}

}  // namespace

std::string uri_encode(std::string_view text, bool keep_slash) {
  static constexpr char kDigits[] = "0123456789ABCDEF";
  std::string out;
  out.reserve(text.size());
  for (const char c : text) {
    const bool unreserved = (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '-' ||
                            c == '_' || c == '.' || c == '~';
    if (unreserved || (keep_slash && c == '/')) {
      out += c;
    } else {
      const auto byte = static_cast<unsigned char>(c);
      out += '%';
      out += kDigits[byte >> 4];
      out += kDigits[byte & 0x0f];
    }
  }
  return out;
}

std::string sha256_hex(std::string_view bytes) {
  const auto digest = crypto::sha256(bytes);
  return to_hex(digest);
}

std::string amz_date(std::int64_t unix_seconds) {
  const std::time_t t = static_cast<std::time_t>(unix_seconds);
  std::tm tm{};
  gmtime_r(&t, &tm);
  char text[17];
  std::strftime(text, sizeof text, "%Y%m%dT%H%M%SZ", &tm);
  return text;
}

std::string canonical_request(const CanonicalInput& in) {
  const Params headers = sorted_headers(in.headers);
  std::string out = in.method + "\n" + uri_encode(in.path, true) + "\n" + canonical_query(in.query) + "\n";
  for (const auto& [name, value] : headers) out += name + ":" + trimmed(value) + "\n";
  out += "\n" + signed_header_names(headers) + "\n" + in.payload_hash;
  return out;
}

std::string signature(const Credentials& creds, const CanonicalInput& in) {
  const std::string to_sign = "AWS4-HMAC-SHA256\n" + in.amz_date + "\n" + scope(creds, in.amz_date) + "\n" +
                              sha256_hex(canonical_request(in));
  std::string key = hmac("AWS4" + creds.secret_key, in.amz_date.substr(0, 8));
  key = hmac(key, creds.region);
  key = hmac(key, "s3");
  key = hmac(key, "aws4_request");
  return hex_of(hmac(key, to_sign));
}

std::string authorization(const Credentials& creds, const CanonicalInput& in) {
  return "AWS4-HMAC-SHA256 Credential=" + creds.access_key + "/" + scope(creds, in.amz_date) +
         ",SignedHeaders=" + signed_header_names(sorted_headers(in.headers)) + ",Signature=" + signature(creds, in);
}

std::string presign_query(const Credentials& creds, std::string_view host, std::string_view path, Params extra,
                          std::string_view date, std::int64_t expires_seconds) {
  CanonicalInput in{.method = "GET",
                    .path = std::string(path),
                    .query = std::move(extra),
                    .headers = {{"host", std::string(host)}},
                    .payload_hash = "UNSIGNED-PAYLOAD",
                    .amz_date = std::string(date)};
  in.query.emplace_back("X-Amz-Algorithm", "AWS4-HMAC-SHA256");
  in.query.emplace_back("X-Amz-Credential", creds.access_key + "/" + scope(creds, date));
  in.query.emplace_back("X-Amz-Date", std::string(date));
  in.query.emplace_back("X-Amz-Expires", std::to_string(expires_seconds));
  in.query.emplace_back("X-Amz-SignedHeaders", "host");
  const std::string sig = signature(creds, in);
  return canonical_query(in.query) + "&X-Amz-Signature=" + sig;
}

}  // namespace mediagen::storage::s3
