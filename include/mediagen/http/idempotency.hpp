#pragma once
// Reading the Idempotency-Key header of a request that takes one.
#include <optional>

#include "mediagen/core/api_error.hpp"
#include "mediagen/core/idempotency_key.hpp"
#include "mediagen/http/route.hpp"

namespace mediagen::http {

// The key with the hash of what the request asks for: the method, the path and the body as
// received. A multipart form is not kept as one body, so it counts as its parts in order, each
// by its name and the sha256 of its bytes (the boundary, the part headers and file names do not
// count: a client that sends the same fields and files again sends the same request). nullopt
// without the header; 422 when it is malformed.
Result<std::optional<IdempotencyKey>> idempotency_key_of(const RequestContext& ctx);

}  // namespace mediagen::http
