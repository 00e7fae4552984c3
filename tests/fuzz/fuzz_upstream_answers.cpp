// What upstream providers answer (src/engines/upstream/upstream_parse.cpp): ElevenLabs' timed speech
// (base64 audio and character alignment), both shapes of voice lists, and error bodies. The first
// byte picks the parser; the rest is the body. Properties:
//   - no parser crashes, whatever the bytes;
//   - words made from an alignment lie inside the text (whole code points), in order, with start
//     times that never go backwards; so do the words estimated over any duration;
//   - a voice list holds at most 1,000 voices, each with a non-empty id of at most 256 bytes;
//   - an error summary is valid UTF-8 of at most 200 bytes, without control characters.
#include <string>
#include <string_view>

#include "fuzz_support.hpp"
#include "mediagen/core/utf8.hpp"
#include "mediagen/engines/upstream.hpp"

namespace {

using namespace mediagen::engines;

void check_words(std::string_view text, const std::vector<WordTiming>& words) {
  std::size_t end = 0;
  std::int64_t last = 0;
  for (const auto& w : words) {
    FUZZ_CHECK(w.text_offset >= end && w.text_length > 0 && w.text_offset + w.text_length <= text.size());
    FUZZ_CHECK(w.start_ms >= last);
    end = w.text_offset + w.text_length;
    last = w.start_ms;
  }
}

void check_voices(const std::vector<UpstreamVoice>& voices) {
  FUZZ_CHECK(voices.size() <= 1000);
  for (const auto& v : voices) FUZZ_CHECK(!v.id.empty() && v.id.size() <= 256 && !v.name.empty());
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size == 0) return 0;
  const std::string_view body = mediagen::fuzz::as_text(data + 1, size - 1);
  switch (data[0] % 5) {
    case 0: {
      const auto timed = parse_timed_speech(body);
      if (!timed) break;
      FUZZ_CHECK(!timed->audio.empty());
      FUZZ_CHECK(timed->characters.size() == timed->starts_seconds.size());
      std::string text;
      for (const auto& c : timed->characters) text += c;
      if (const auto words = words_from_alignment(text, timed->characters, timed->starts_seconds)) check_words(text, *words);
      break;
    }
    case 1: check_voices(parse_openai_voices(body)); break;
    case 2: check_voices(parse_elevenlabs_voices(body)); break;
    case 3: {
      const std::string summary = error_summary(body);
      FUZZ_CHECK(summary.size() <= 200 && mediagen::is_valid_utf8(summary));
      for (const char c : summary) FUZZ_CHECK(static_cast<unsigned char>(c) >= 0x20);
      (void)is_content_refusal(body);
      break;
    }
    case 4: check_words(body, estimate_words(body, static_cast<std::int64_t>(size) * 37)); break;
  }
  return 0;
}
