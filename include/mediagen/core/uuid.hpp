#pragma once
#include <string>
#include <string_view>

namespace mediagen {

// A canonical 8-4-4-4-12 hex uuid (either case): the shape of order, template and voice ids.
bool is_uuid(std::string_view text) noexcept;

// The text lowercased: uuids are stored and referenced (ledger owners, idempotency scopes) in
// lowercase, so an id from outside in capitals must name the same object.
std::string lowercase_id(std::string_view text);

// A fresh random (version 4) uuid, lowercase.
std::string random_uuid();

}  // namespace mediagen
