#pragma once
// The refusals of the download link, in the plain shape {success:false, message} of spec 2.1.
#include <cstdint>

#include "mediagen/core/api_error.hpp"

namespace mediagen::storage {

// 403: a parameter is missing or malformed, or the signature does not match the claims.
ApiError link_invalid();
// 410: the link was genuine but its expiry has passed; a fresh one comes from POST /storage/url.
ApiError link_expired();
// 416 with "Content-Range: bytes */size" (RFC 9110 15.5.17).
ApiError range_not_satisfiable(std::uint64_t size);

}  // namespace mediagen::storage
