#include "mediagen/engines/mp3.hpp"

#include <lame/lame.h>

#include <algorithm>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

namespace mediagen::engines {
namespace {

// The MPEG-1/2 Layer III synthesis filterbank delays every decoder's output by 528 samples,
// plus one for the MDCT overlap: 529 (the figure mpg123 and LAME's gapless info use).
constexpr int kDecoderDelaySamples = 529;

// LAME writes process-global tables (pow43, ipow20, the log table, ...) while it sets up an
// encoder, every time, always with the same values. Setting up two encoders at once is a data
// race on them, so set-up is serialised; encoding itself touches only the encoder's own state
// and runs in parallel. (A set-up in one thread still rewrites those tables, with identical
// values, while others encode; that is harmless on every platform we build for.)
std::mutex& lame_setup_mutex() {
  static std::mutex mutex;
  return mutex;
}

struct LameCloser {
  void operator()(lame_global_flags* gfp) const { lame_close(gfp); }
};
using Lame = std::unique_ptr<lame_global_flags, LameCloser>;

std::int64_t samples_to_ms(std::int64_t samples, int sample_rate) {
  return (samples * 1000 + sample_rate / 2) / sample_rate;
}

}  // namespace

boost::system::result<Mp3Stream, EngineFailure> encode_mp3(std::span<const std::int16_t> pcm, int sample_rate,
                                                           const Mp3Options& options) {
  if (sample_rate < 8000 || sample_rate > 48000) {
    return EngineFailure::technical("mp3: unsupported sample rate " + std::to_string(sample_rate));
  }
  Lame lame;
  {
    std::lock_guard lock(lame_setup_mutex());
    lame.reset(lame_init());
    if (!lame) return EngineFailure::technical("mp3: lame_init failed");
    lame_set_num_channels(lame.get(), 1);
    lame_set_mode(lame.get(), MONO);
    lame_set_in_samplerate(lame.get(), sample_rate);
    lame_set_out_samplerate(lame.get(), sample_rate);
    lame_set_VBR(lame.get(), vbr_off);
    lame_set_brate(lame.get(), options.bitrate_kbps);
    lame_set_quality(lame.get(), std::clamp(options.quality, 0, 9));
    // Frames only: no Xing/Info frame and no ID3 tags, so chunk streams concatenate.
    lame_set_bWriteVbrTag(lame.get(), 0);
    lame_set_write_id3tag_automatic(lame.get(), 0);
    if (lame_init_params(lame.get()) < 0) {
      return EngineFailure::technical("mp3: LAME rejected " + std::to_string(options.bitrate_kbps) + " kbit/s at " +
                                      std::to_string(sample_rate) + " Hz");
    }
  }

  // A stream always holds at least one frame: empty input is encoded as one frame of silence.
  std::vector<std::int16_t> silence;
  if (pcm.empty()) {
    silence.assign(static_cast<std::size_t>(lame_get_framesize(lame.get())), 0);
    pcm = silence;
  }

  // Encoded in blocks so the output buffer stays small relative to the input; LAME's bound for
  // a block of n samples is 1.25 n + 7200 bytes.
  constexpr std::size_t kBlock = 1152 * 64;
  std::string out;
  out.reserve(pcm.size() * static_cast<std::size_t>(options.bitrate_kbps) * 125 /
                  static_cast<std::size_t>(sample_rate) + 8192);
  std::vector<unsigned char> buffer(kBlock * 5 / 4 + 7200);
  for (std::size_t at = 0; at < pcm.size(); at += kBlock) {
    const std::size_t n = std::min(kBlock, pcm.size() - at);
    // LAME takes a non-const pointer but does not write through it.
    auto* samples = const_cast<short*>(reinterpret_cast<const short*>(pcm.data() + at));
    const int written = lame_encode_buffer(lame.get(), samples, nullptr, static_cast<int>(n), buffer.data(),
                                           static_cast<int>(buffer.size()));
    if (written < 0) return EngineFailure::technical("mp3: lame_encode_buffer failed (" + std::to_string(written) + ")");
    out.append(reinterpret_cast<const char*>(buffer.data()), static_cast<std::size_t>(written));
  }
  const int flushed = lame_encode_flush(lame.get(), buffer.data(), static_cast<int>(buffer.size()));
  if (flushed < 0) return EngineFailure::technical("mp3: lame_encode_flush failed (" + std::to_string(flushed) + ")");
  out.append(reinterpret_cast<const char*>(buffer.data()), static_cast<std::size_t>(flushed));

  Mp3Stream stream;
  stream.bytes = std::move(out);
  stream.sample_rate = lame_get_out_samplerate(lame.get());
  stream.frames = lame_get_frameNum(lame.get());
  stream.samples_per_frame = lame_get_framesize(lame.get());
  stream.decoded_samples = stream.frames * stream.samples_per_frame;
  stream.delay_samples = lame_get_encoder_delay(lame.get()) + kDecoderDelaySamples;
  stream.duration_ms = samples_to_ms(stream.decoded_samples, stream.sample_rate);
  stream.delay_ms = samples_to_ms(stream.delay_samples, stream.sample_rate);
  return stream;
}

}  // namespace mediagen::engines
