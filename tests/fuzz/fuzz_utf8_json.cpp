// UTF-8 validation and the JSON string writer (src/core/utf8.cpp, src/core/json_writer.cpp).
// Input: any bytes, taken as a string value. Properties:
//   - is_valid_utf8 and decode_utf8 (at every position) agree with an independent decoder of
//     strict UTF-8 (no overlongs, no surrogates, nothing above U+10FFFF), and count_code_points
//     of valid text is the number of code points it finds; is_clean_text is validity without
//     refused controls; utf8_prefix of valid text is the longest prefix within the limit that
//     ends on a code point;
//   - append_json_string always writes a JSON string nlohmann accepts, whatever the bytes
//     (invalid UTF-8 becomes U+FFFD); read back, it is the input whenever the input was valid
//     UTF-8, and valid UTF-8 in any case;
//   - a JsonWriter document holding the text as a value in an object and in an array is
//     valid JSON.
#include <algorithm>
#include <optional>
#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

#include "fuzz_support.hpp"
#include "mediagen/core/json_writer.hpp"
#include "mediagen/core/utf8.hpp"

namespace {

using mediagen::fuzz::as_text;

struct Decoded {
  char32_t value;
  std::size_t length;
};

// Strict UTF-8 by code point value: decode, then refuse overlongs, surrogates and > U+10FFFF.
// nullopt when text does not start with a valid sequence.
std::optional<Decoded> reference_decode(std::string_view text) {
  if (text.empty()) return std::nullopt;
  const auto b0 = static_cast<unsigned char>(text[0]);
  std::size_t n;
  char32_t cp;
  if (b0 < 0x80) {
    n = 1;
    cp = b0;
  } else if ((b0 & 0xE0) == 0xC0) {
    n = 2;
    cp = b0 & 0x1F;
  } else if ((b0 & 0xF0) == 0xE0) {
    n = 3;
    cp = b0 & 0x0F;
  } else if ((b0 & 0xF8) == 0xF0) {
    n = 4;
    cp = b0 & 0x07;
  } else {
    return std::nullopt;
  }
  if (n > text.size()) return std::nullopt;
  for (std::size_t k = 1; k < n; ++k) {
    const auto b = static_cast<unsigned char>(text[k]);
    if ((b & 0xC0) != 0x80) return std::nullopt;
    cp = (cp << 6) | (b & 0x3F);
  }
  static constexpr char32_t kSmallest[] = {0, 0, 0x80, 0x800, 0x10000};
  if (cp < kSmallest[n] || (cp >= 0xD800 && cp <= 0xDFFF) || cp > 0x10FFFF) return std::nullopt;
  return Decoded{cp, n};
}

// Every position: decode_utf8 gives what the reference gives. Returns whether the whole text is
// valid by the reference, and counts its code points when it is.
bool decoders_agree(std::string_view text, std::size_t& code_points) {
  code_points = 0;
  for (std::size_t i = 0; i < text.size(); ++i) {
    const auto expected = reference_decode(text.substr(i));
    const auto got = mediagen::decode_utf8(text.substr(i));
    FUZZ_CHECK(expected.has_value() == got.has_value());
    if (expected) FUZZ_CHECK(expected->value == got->value && expected->length == got->length);
  }
  for (std::size_t i = 0; i < text.size(); ++code_points) {
    const auto d = reference_decode(text.substr(i));
    if (!d) return false;
    i += d->length;
  }
  return true;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view text = as_text(data, size);
  const bool valid = mediagen::is_valid_utf8(text);
  std::size_t code_points = 0;
  FUZZ_CHECK(valid == decoders_agree(text, code_points));
  if (valid) FUZZ_CHECK(mediagen::count_code_points(text) == code_points);
  FUZZ_CHECK(mediagen::is_clean_text(text) ==
             (valid && std::none_of(text.begin(), text.end(),
                                    [](char c) { return mediagen::is_refused_control(static_cast<unsigned char>(c)); })));
  if (valid) {
    for (std::size_t max : {std::size_t{0}, std::size_t{1}, size / 2, size > 0 ? size - 1 : 0, size}) {
      const std::string_view prefix = mediagen::utf8_prefix(text, max);
      FUZZ_CHECK(prefix.size() <= max && text.starts_with(prefix) && mediagen::is_valid_utf8(prefix));
      FUZZ_CHECK(max - prefix.size() < 4 || prefix.size() == size);
    }
  }

  std::string json;
  mediagen::append_json_string(json, text);
  FUZZ_CHECK(nlohmann::json::accept(json));
  const auto decoded = nlohmann::json::parse(json, nullptr, false);
  FUZZ_CHECK(decoded.is_string());
  const auto& back = decoded.get_ref<const std::string&>();
  FUZZ_CHECK(mediagen::is_valid_utf8(back));
  if (valid) FUZZ_CHECK(back == text);

  mediagen::JsonWriter writer;
  writer.begin_object().field("text", text).key("list").begin_array().value(text).value(text).end_array().end_object();
  FUZZ_CHECK(nlohmann::json::accept(writer.take()));
  return 0;
}
