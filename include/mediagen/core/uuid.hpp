#pragma once
#include <chrono>
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

// A fresh time-ordered (version 7, RFC 9562) uuid, lowercase: 48 bits of Unix time in
// milliseconds, then 74 random bits. Rows keyed by it are inserted and claimed in roughly the
// order of their index entries, so a write touches the index pages its neighbours touched.
// It tells when it was made, to the millisecond; our order and chunk ids already carry that.
std::string time_ordered_uuid();
std::string time_ordered_uuid(std::chrono::system_clock::time_point at);

}  // namespace mediagen
