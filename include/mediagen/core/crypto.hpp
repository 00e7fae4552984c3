#pragma once
#include <array>
#include <cstdint>
#include <span>
#include <optional>
#include <string>
#include <string_view>

#include "mediagen/core/hex.hpp"

namespace mediagen::crypto {

using Sha256Digest = std::array<std::uint8_t, 32>;

Sha256Digest sha256(std::string_view data);
std::string hmac_sha256_hex(std::string_view key, std::string_view data);
std::string hmac_sha256(std::string_view key, std::string_view data);  // the 32 raw bytes
using mediagen::to_hex;  // lower-case digits

// Compares in time that depends only on the length, so secrets cannot be guessed byte by byte.
bool constant_time_equal(std::span<const std::uint8_t> a, std::span<const std::uint8_t> b);
bool constant_time_equal(std::string_view a, std::string_view b);

// Cryptographically secure random bytes (OpenSSL RAND_bytes); throws if the RNG fails.
std::string random_bytes(std::size_t count);
std::string base64url(std::string_view bytes);  // no padding
std::string base64(std::string_view bytes);     // standard alphabet, padded
// Standard base64 (RFC 4648 section 4, padding optional; whitespace skipped); nullopt for any
// other character or a truncated group.
std::optional<std::string> base64_decode(std::string_view text);

}  // namespace mediagen::crypto
