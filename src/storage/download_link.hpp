#pragma once
// The query string of a download link: built when a link is issued, parsed when it is used.
//   ?path=<percent-encoded key>&expires=<unix seconds>&download=0|1&signature=<base64url>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "mediagen/core/percent.hpp"
#include "mediagen/storage/link_signer.hpp"

namespace mediagen::storage {

struct DownloadLink {
  std::string key;  // decoded; not yet checked against the key rules
  std::int64_t expires_at = 0;
  bool download = false;
  std::string signature;

  LinkClaims claims() const { return {key, expires_at, download}; }
};

// `endpoint` is the absolute URL of the download route, without a query.
std::string link_url(std::string_view endpoint, const LinkClaims& claims, std::string_view signature);

// nullopt when a parameter is missing, repeated, not in the encoding link_url writes, or
// malformed: expires must be canonical decimal (no sign, no leading zero), download exactly "0"
// or "1". Unknown parameters are ignored.
std::optional<DownloadLink> parse_link_query(std::string_view query);

// RFC 3986 percent-encoding of everything but the unreserved characters ('/' becomes %2F).
using mediagen::percent_encode;

}  // namespace mediagen::storage
