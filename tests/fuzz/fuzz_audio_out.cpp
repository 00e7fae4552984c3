// The chunks' MP3 converted to the response formats (include/mediagen/engines/codec/audio_out.hpp): FFmpeg's MP3
// parser and decoder, the resampler and the encoders fed hostile bytes. Input: the first byte
// picks the format, the rest is fed in pieces of up to 4 KiB. Properties: nothing crashes or
// leaks; a failure is a nullopt, never an exception.
#include <string>

#include "compat/speech_request.hpp"
#include "mediagen/engines/codec/audio_out.hpp"
#include "fuzz_support.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace mediagen::compat;
  if (size == 0) return 0;
  constexpr AudioFormat kFormats[] = {AudioFormat::pcm, AudioFormat::wav, AudioFormat::opus, AudioFormat::flac};
  auto out = mediagen::engines::make_audio_out(audio_out_spec(kFormats[data[0] % 4]));
  FUZZ_CHECK(out != nullptr);
  const auto bytes = mediagen::fuzz::as_text(data + 1, size - 1);
  for (std::size_t at = 0; at < bytes.size(); at += 4096) {
    if (!out->feed(bytes.substr(at, 4096))) return 0;
  }
  (void)out->finish();
  return 0;
}
