#pragma once
// The Idempotency-Key of a request (beyond the spec, because charging is automatic and clients
// time out): the header's value and the hash of what the request asks for. The HTTP side reads
// it (http/idempotency.hpp); the store keeps the first answer under it (db/idempotency.hpp).
#include <optional>
#include <string>
#include <string_view>

namespace mediagen {

struct IdempotencyKey {
  std::string key;
  std::string request_hash;  // hex sha256 of the method, the path and the body as received
};

// 1..255 visible ASCII characters; otherwise nullopt (the route answers 422).
std::optional<std::string> valid_idempotency_key(std::string_view header) noexcept;

}  // namespace mediagen
