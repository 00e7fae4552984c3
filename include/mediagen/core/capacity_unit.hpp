#pragma once
// How a chunk capacity is counted: Unicode code points, or bytes of UTF-8 (provider_d: a Latin
// letter is 1, a Cyrillic letter 2, a CJK ideograph 3, an emoji 4), or - for sound effects and
// music, which are billed by the audio they make - seconds of audio per chunk, or - for voice
// search, one flat price per order - searches (one per order). Shared by the
// catalogue, which stores it per model, and the chunker, which counts text in the first two.
#include <optional>
#include <string_view>

namespace mediagen {

enum class CapacityUnit { chars, utf8_bytes, seconds, searches };

std::string_view to_string(CapacityUnit unit) noexcept;  // "chars", "utf8_bytes", "seconds", "searches"
std::optional<CapacityUnit> capacity_unit_from_string(std::string_view name) noexcept;

}  // namespace mediagen
