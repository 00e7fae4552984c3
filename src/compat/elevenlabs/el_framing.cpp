#include "el_framing.hpp"

#include "mediagen/engines/audio/char_timings.hpp"
#include "mediagen/core/crypto.hpp"
#include "mediagen/engines/audio/word_timings.hpp"
#include "mediagen/engines/speech/breaks.hpp"

namespace mediagen::compat::elevenlabs {
namespace {

using engines::CharTimes;
using engines::ChunkSpeech;
using engines::align_chunk;
using engines::alignment_json;

// The characters of the chunks seen so far, and where the current chunk lies in the audio.
class Aligner {
 public:
  void chunk(const ChunkState& ready) {
    chunk_start_ms_ = next_offset_ms_;
    chunk_duration_ms_ = ready.duration_ms;
    next_offset_ms_ += ready.duration_ms;
    if (!ready.speech || ready.speech->text.empty()) return;
    const auto words = engines::timings_from_json(ready.speech->timings_json).value_or(std::vector<engines::WordTiming>{});
    // The break tags were pauses: the characters are the text as spoken, without them.
    const auto spoken = engines::without_breaks(ready.speech->text, words);
    const ChunkSpeech speech{spoken.text, spoken.words, chunk_start_ms_, ready.duration_ms};
    align_chunk(speech, times_.size() > 0, times_);
  }

  // How many characters start within the audio up to `done` of the current chunk.
  std::size_t heard(double done) const {
    if (done >= 1.0) return times_.size();
    const double until = (static_cast<double>(chunk_start_ms_) + done * static_cast<double>(chunk_duration_ms_)) / 1000.0;
    std::size_t n = sent_;
    while (n < times_.size() && times_.starts[n] <= until) ++n;
    return n;
  }

  const CharTimes& times() const { return times_; }
  std::size_t sent_ = 0;

 private:
  CharTimes times_;
  std::int64_t chunk_start_ms_ = 0;
  std::int64_t chunk_duration_ms_ = 0;
  std::int64_t next_offset_ms_ = 0;
};

std::string alignment_members(const CharTimes& times, std::size_t from, std::size_t to) {
  const std::string alignment = alignment_json(times, from, to);
  return "\"alignment\":" + alignment + ",\"normalized_alignment\":" + alignment;
}

class Lines final : public StreamFraming {
 public:
  bool wants_speech() const override { return true; }
  void chunk(const ChunkState& ready) override { aligner_.chunk(ready); }

  std::string piece(std::string audio, double done) override {
    if (audio.empty()) return {};
    return line(audio, aligner_.heard(done));
  }

  std::string end(std::string tail) override {
    if (tail.empty() && aligner_.sent_ == aligner_.times().size()) return {};
    return line(tail, aligner_.times().size());
  }

 private:
  std::string line(std::string_view audio, std::size_t upto) {
    std::string out = "{\"audio_base64\":\"" + crypto::base64(audio) + "\"";
    if (upto > aligner_.sent_) out += "," + alignment_members(aligner_.times(), aligner_.sent_, upto);
    aligner_.sent_ = upto;
    return out + "}\n";
  }

  Aligner aligner_;
};

class Whole final : public StreamFraming {
 public:
  bool wants_speech() const override { return true; }
  void chunk(const ChunkState& ready) override { aligner_.chunk(ready); }

  std::string piece(std::string audio, double) override { return encode(audio, false); }

  std::string end(std::string tail) override {
    std::string out = encode(tail, true);
    return out + "\"," + alignment_members(aligner_.times(), 0, aligner_.times().size()) + "}";
  }

 private:
  // Base64 of whole 3-byte groups as they come; the last one or two bytes wait for the next piece
  // (or the end, where they are padded), so the text is one base64 string.
  std::string encode(std::string_view audio, bool last) {
    std::string out = started_ ? "" : "{\"audio_base64\":\"";
    started_ = true;
    carry_.append(audio);
    const std::size_t whole = last ? carry_.size() : carry_.size() - carry_.size() % 3;
    out += crypto::base64(std::string_view(carry_).substr(0, whole));
    carry_.erase(0, whole);
    return out;
  }

  Aligner aligner_;
  bool started_ = false;
  std::string carry_;
};

}  // namespace

std::shared_ptr<StreamFraming> whole_timestamps() { return std::make_shared<Whole>(); }
std::shared_ptr<StreamFraming> timestamp_lines() { return std::make_shared<Lines>(); }

}  // namespace mediagen::compat::elevenlabs
