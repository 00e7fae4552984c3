// Audio intake (src/engines/audio_intake*.cpp): an uploaded file's bytes. Input: one byte of
// options, then the file. Bit 0 hands the bytes straight to the FFmpeg side, past the libmagic
// check, so mutations the sniffing would refuse still reach the demuxers and the memory IO;
// bits 1-3 set max_seconds to 1..8. Properties, whatever the bytes:
//   - never a crash, a leak or a hang (a wall-time cap of 3 s per input);
//   - a result holds 1..max_seconds*16000 samples, finite and within -1..1, at 16 kHz, with
//     seconds matching the count and a container name from the accepted list;
//   - empty input is refused as empty.
#include <algorithm>
#include <array>
#include <cmath>
#include <string_view>

#include "engines/codec/audio_intake_decode.hpp"
#include "fuzz_support.hpp"
#include "mediagen/engines/codec.hpp"

namespace {

using namespace mediagen::engines;

constexpr std::array kFormats = {std::string_view{"wav"}, std::string_view{"mp3"},  std::string_view{"ogg"},
                                 std::string_view{"flac"}, std::string_view{"mp4"}, std::string_view{"aac"},
                                 std::string_view{"webm"}, std::string_view{"matroska"}};

void check(const AnalysisAudio& audio, const IntakeLimits& limits) {
  FUZZ_CHECK(!audio.samples.empty());
  FUZZ_CHECK(audio.samples.size() <= static_cast<std::size_t>(limits.max_seconds * kAnalysisSampleRate));
  FUZZ_CHECK(audio.sample_rate == kAnalysisSampleRate);
  FUZZ_CHECK(audio.seconds == static_cast<double>(audio.samples.size()) / kAnalysisSampleRate);
  FUZZ_CHECK(std::find(kFormats.begin(), kFormats.end(), audio.format) != kFormats.end());
  for (float v : audio.samples) FUZZ_CHECK(std::isfinite(v) && v >= -1.0f && v <= 1.0f);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size == 0) return 0;
  const std::uint8_t options = data[0];
  const std::string_view file = mediagen::fuzz::as_text(data + 1, size - 1);
  IntakeLimits limits;
  limits.max_seconds = 1 + ((options >> 1) & 7);
  limits.max_decode_time = std::chrono::milliseconds{3000};
  if ((options & 1) != 0 && !file.empty()) {
    const auto audio = intake::decode(file, limits);
    if (audio) check(*audio, limits);
    return 0;
  }
  const auto audio = read_audio(file, limits);
  if (file.empty()) FUZZ_CHECK(!audio && audio.error().kind == IntakeRefusalKind::empty);
  if (audio) check(*audio, limits);
  return 0;
}
