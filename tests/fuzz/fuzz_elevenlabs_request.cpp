// The ElevenLabs-compatible surface's request readers (src/compat/elevenlabs/el_request.hpp) and
// the error shape of their refusals (el_errors.hpp). Input: the first line picks the reader
// ("speech", "sound", "music" or "format"), the rest is the body (JSON) or the query text.
// Properties:
//   - nothing crashes or leaks, whatever the bytes;
//   - a refusal is a 422 naming one field, rendered as ElevenLabs' {"detail": {status, message}}
//     with status "invalid_<field>";
//   - an accepted request keeps every value within its documented range;
//   - an accepted output_format is one of the documented names, and names itself.
#include <string>

#include <nlohmann/json.hpp>

#include "compat/elevenlabs/el_errors.hpp"
#include "compat/elevenlabs/el_request.hpp"
#include "fuzz_support.hpp"
#include "mediagen/core/utf8.hpp"

namespace {

using namespace mediagen;
using namespace mediagen::compat::elevenlabs;

void check_refusal(const ApiError& error) {
  FUZZ_CHECK(error.status == 422);
  FUZZ_CHECK(error.fields.size() == 1);
  const auto rendered = elevenlabs_error(error, Locale::en);
  FUZZ_CHECK(rendered.status == 422);
  const auto shape = nlohmann::json::parse(rendered.body, nullptr, false);
  FUZZ_CHECK(shape.is_object() && shape.size() == 1 && shape["detail"].is_object() && shape["detail"].size() == 2);
  FUZZ_CHECK(shape["detail"]["status"].get<std::string>().rfind("invalid_", 0) == 0);
}

template <class T>
bool accepted(const Result<T>& read) {
  if (!read) check_refusal(read.error());
  return static_cast<bool>(read);
}

void in_range(const std::optional<double>& v, double min, double max) {
  if (v) FUZZ_CHECK(*v >= min && *v <= max);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  fuzz::Lines lines{fuzz::as_text(data, size)};
  std::string_view kind;
  if (!lines.next(kind)) return 0;
  const std::string_view rest = lines.rest;
  if (kind == "format") {
    auto format = read_output_format(rest);
    if (accepted(format)) FUZZ_CHECK(engines::parse_output_format(format->name()) == *format);
    return 0;
  }
  const auto body = nlohmann::json::parse(rest, nullptr, false);
  if (body.is_discarded()) return 0;
  if (kind == "speech") {
    auto read = read_speech_body(body);
    if (!accepted(read)) return 0;
    FUZZ_CHECK(!read->text.empty() && count_code_points(read->text) <= kMaxInputChars);
    in_range(read->settings.stability, 0, 1);
    in_range(read->settings.similarity_boost, 0, 1);
    in_range(read->settings.speed, 0.7, 1.2);
    if (read->previous_text) FUZZ_CHECK(count_code_points(*read->previous_text) <= kMaxContextChars);
    if (read->next_text) FUZZ_CHECK(count_code_points(*read->next_text) <= kMaxContextChars);
  } else if (kind == "sound") {
    auto read = read_sound_body(body);
    if (!accepted(read)) return 0;
    FUZZ_CHECK(!read->text.empty() && count_code_points(read->text) <= kMaxPromptChars);
    in_range(read->duration_seconds, 0.5, 22);
  } else if (kind == "music") {
    auto read = read_music_body(body);
    if (!accepted(read)) return 0;
    FUZZ_CHECK(!read->prompt.empty());
    if (read->length_ms) FUZZ_CHECK(*read->length_ms >= 5000 && *read->length_ms <= 300000);
  }
  return 0;
}
