// ElevenLabs' break tags (src/engines/speech/breaks.cpp): finding them in any text, removing them
// with the word timings mapped, and speaking the pieces between them. Input: the text. Properties:
//   - nothing crashes or leaks, whatever the bytes;
//   - tags come in order, never overlap, lie inside the text, start with '<', end with "/>" and
//     pause 0..kMaxBreakMs;
//   - the text without them is the text minus exactly their bytes, and a word mapped onto it still
//     lies inside it;
//   - speaking with breaks asks for the whole text when it has no tag, else only for pieces of it
//     with something to say, never a tag's bytes; every word it returns points into the whole text.
#include <string>
#include <vector>

#include "fuzz_support.hpp"
#include "mediagen/engines/speech/breaks.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace mediagen;
  using namespace mediagen::engines;
  const std::string text(fuzz::as_text(data, size));
  const auto tags = find_breaks(text);
  std::size_t end = 0;
  std::size_t removed = 0;
  for (const auto& t : tags) {
    FUZZ_CHECK(t.offset >= end && t.offset + t.length <= text.size());
    FUZZ_CHECK(text[t.offset] == '<' && text.compare(t.offset + t.length - 2, 2, "/>") == 0);
    FUZZ_CHECK(t.ms >= 0 && t.ms <= kMaxBreakMs);
    end = t.offset + t.length;
    removed += t.length;
  }
  // One word at every 7th byte, each a byte long.
  std::vector<WordTiming> words;
  for (std::size_t at = 0; at < text.size(); at += 7) words.push_back({at, 1, static_cast<std::int64_t>(at)});
  const auto spoken = without_breaks(text, words);
  FUZZ_CHECK(spoken.text.size() == text.size() - removed);
  for (const auto& w : spoken.words) FUZZ_CHECK(w.text_offset < spoken.text.size());

  SpeechRequest request;
  request.text = text;
  request.breaks = true;
  auto pcm = speak_with_breaks(request, [&](const SpeechRequest& piece) -> boost::system::result<SpeechPcm, EngineFailure> {
    // A text without tags is spoken whole; between tags only pieces with something to say.
    FUZZ_CHECK(piece.text.size() <= text.size());
    FUZZ_CHECK(tags.empty() ? piece.text == text : !piece.text.empty());
    FUZZ_CHECK(find_breaks(piece.text).empty());
    SpeechPcm out;
    out.sample_rate = 8000;
    out.samples.assign(80, 1);
    if (!piece.text.empty()) out.words.push_back({0, 1, 0});
    return out;
  });
  if (pcm) {
    for (const auto& w : pcm->words) FUZZ_CHECK(w.text_offset < text.size());
  }
  return 0;
}
