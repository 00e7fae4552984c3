#include "mediagen/engines/audio.hpp"

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

// Frames handed to LAME per call.
constexpr std::size_t kBlockFrames = 1152 * 64;

// LAME writes process-global tables (pow43, ipow20, the log table, ...) while it sets up an
// encoder, every time, always with the same values. Setting up two encoders at once is a data
// race on them, so set-up is serialised; encoding itself touches only the encoder's own state
// and runs in parallel. (A set-up in one thread still rewrites those tables, with identical
// values, while others encode; that is harmless on every platform we build for.)
std::mutex& lame_setup_mutex() {
  static std::mutex mutex;
  return mutex;
}

}  // namespace

void Mp3Encoder::Closer::operator()(lame_global_struct* gfp) const { lame_close(gfp); }

Mp3Encoder::Mp3Encoder(std::unique_ptr<lame_global_struct, Closer> lame, int channels, int bitrate_kbps)
    : lame_(std::move(lame)), channels_(channels), buffer_(kBlockFrames * 5 / 4 + 7200) {
  bytes_.reserve(static_cast<std::size_t>(bitrate_kbps) * 125 + 8192);  // about a second's worth
}
Mp3Encoder::Mp3Encoder(Mp3Encoder&&) noexcept = default;
Mp3Encoder& Mp3Encoder::operator=(Mp3Encoder&&) noexcept = default;
Mp3Encoder::~Mp3Encoder() = default;

boost::system::result<Mp3Encoder, EngineFailure> Mp3Encoder::create(int channels, int sample_rate,
                                                                    const Mp3Options& options) {
  if (sample_rate < 8000 || sample_rate > 48000) {
    return EngineFailure::technical("mp3: unsupported sample rate " + std::to_string(sample_rate));
  }
  if (channels != 1 && channels != 2) {
    return EngineFailure::technical("mp3: unsupported channel count " + std::to_string(channels));
  }
  std::unique_ptr<lame_global_struct, Closer> lame;
  std::lock_guard lock(lame_setup_mutex());
  lame.reset(lame_init());
  if (!lame) return EngineFailure::technical("mp3: lame_init failed");
  lame_set_num_channels(lame.get(), channels);
  lame_set_mode(lame.get(), channels == 1 ? MONO : JOINT_STEREO);
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
  return Mp3Encoder(std::move(lame), channels, options.bitrate_kbps);
}

boost::system::result<void, EngineFailure> Mp3Encoder::write(std::span<const std::int16_t> samples) {
  if (!lame_) return EngineFailure::technical("mp3: encoder already finished");
  const auto channels = static_cast<std::size_t>(channels_);
  const std::size_t frames = samples.size() / channels;
  // Encoded in blocks so the output buffer stays small; LAME's bound for a block of n frames is
  // 1.25 n + 7200 bytes.
  for (std::size_t at = 0; at < frames; at += kBlockFrames) {
    const std::size_t n = std::min(kBlockFrames, frames - at);
    // LAME takes a non-const pointer but does not write through it.
    auto* pcm = const_cast<short*>(reinterpret_cast<const short*>(samples.data() + at * channels));
    const int size = static_cast<int>(buffer_.size());
    const int written = channels_ == 1
                            ? lame_encode_buffer(lame_.get(), pcm, nullptr, static_cast<int>(n), buffer_.data(), size)
                            : lame_encode_buffer_interleaved(lame_.get(), pcm, static_cast<int>(n), buffer_.data(), size);
    if (written < 0) return EngineFailure::technical("mp3: lame_encode_buffer failed (" + std::to_string(written) + ")");
    bytes_.append(reinterpret_cast<const char*>(buffer_.data()), static_cast<std::size_t>(written));
  }
  frames_in_ += static_cast<std::int64_t>(frames);
  return {};
}

boost::system::result<Mp3Stream, EngineFailure> Mp3Encoder::finish() {
  if (!lame_) return EngineFailure::technical("mp3: encoder already finished");
  // A stream always holds at least one frame: empty input is encoded as one frame of silence.
  if (frames_in_ == 0) {
    const std::vector<std::int16_t> silence(static_cast<std::size_t>(lame_get_framesize(lame_.get()) * channels_), 0);
    if (auto written = write(silence); !written) return written.error();
  }
  const int flushed = lame_encode_flush(lame_.get(), buffer_.data(), static_cast<int>(buffer_.size()));
  if (flushed < 0) return EngineFailure::technical("mp3: lame_encode_flush failed (" + std::to_string(flushed) + ")");
  bytes_.append(reinterpret_cast<const char*>(buffer_.data()), static_cast<std::size_t>(flushed));

  Mp3Stream stream;
  stream.bytes = std::move(bytes_);
  stream.sample_rate = lame_get_out_samplerate(lame_.get());
  stream.frames = lame_get_frameNum(lame_.get());
  stream.samples_per_frame = lame_get_framesize(lame_.get());
  stream.decoded_samples = stream.frames * stream.samples_per_frame;
  stream.delay_samples = lame_get_encoder_delay(lame_.get()) + kDecoderDelaySamples;
  stream.duration_ms = samples_to_ms(stream.decoded_samples, stream.sample_rate);
  stream.delay_ms = samples_to_ms(stream.delay_samples, stream.sample_rate);
  lame_.reset();
  return stream;
}

namespace {

boost::system::result<Mp3Stream, EngineFailure> encode_whole(std::span<const std::int16_t> pcm, int channels,
                                                             int sample_rate, const Mp3Options& options) {
  auto encoder = Mp3Encoder::create(channels, sample_rate, options);
  if (!encoder) return encoder.error();
  if (auto written = encoder->write(pcm); !written) return written.error();
  return encoder->finish();
}

}  // namespace

boost::system::result<Mp3Stream, EngineFailure> encode_mp3(std::span<const std::int16_t> pcm, int sample_rate,
                                                           const Mp3Options& options) {
  return encode_whole(pcm, 1, sample_rate, options);
}

boost::system::result<Mp3Stream, EngineFailure> encode_mp3_stereo(std::span<const std::int16_t> interleaved,
                                                                  int sample_rate, const Mp3Options& options) {
  return encode_whole(interleaved, 2, sample_rate, options);
}

}  // namespace mediagen::engines
