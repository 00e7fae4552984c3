#pragma once
// Pieces of the FFmpeg side of audio intake: the memory reader behind the custom AVIOContext, and
// the resampler feeding a bounded sink (FFmpeg's owning pointers are codec.hpp's).
extern "C" {
#include <libavcodec/avcodec.h>
#include <libavformat/avformat.h>
#include <libavutil/channel_layout.h>
#include <libavutil/frame.h>
#include <libswresample/swresample.h>
}

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <string_view>
#include <vector>

#include "mediagen/engines/codec.hpp"

namespace mediagen::engines::intake {

using ffmpeg::CodecPtr;
using ffmpeg::FormatPtr;
using ffmpeg::FramePtr;
using ffmpeg::IoPtr;
using ffmpeg::PacketPtr;
using ffmpeg::SwrPtr;

// The upload's bytes as a seekable file for avio_alloc_context.
struct MemoryInput {
  std::string_view bytes;
  std::int64_t position = 0;
};
int read_memory(void* opaque, std::uint8_t* buffer, int size);
std::int64_t seek_memory(void* opaque, std::int64_t offset, int whence);

// Analysis samples up to a fixed capacity; anything offered past it marks the audio truncated.
class Sink {
 public:
  // Reserves up to ten minutes at once; a larger capacity grows as samples arrive.
  explicit Sink(std::size_t capacity) : capacity_(capacity) {
    samples_.reserve(std::min<std::size_t>(capacity, 600 * 16000));
  }
  void add(const float* data, std::size_t count);
  void cut() { truncated_ = true; }
  bool done() const { return truncated_; }
  bool truncated() const { return truncated_; }
  const std::vector<float>& samples() const { return samples_; }
  std::vector<float> take() && { return std::move(samples_); }

 private:
  std::size_t capacity_;
  std::vector<float> samples_;
  bool truncated_ = false;
};

// Decoded frames of any layout, rate and sample format to mono float at the output rate. A stream whose
// shape changes part way (chained Ogg, a rate switch in MP3) gets a new converter.
class Resampler {
 public:
  explicit Resampler(int output_rate) : output_rate_(output_rate) {}
  Resampler(const Resampler&) = delete;
  Resampler& operator=(const Resampler&) = delete;
  ~Resampler() { av_channel_layout_uninit(&layout_); }

  // False when the frame's shape is unusable (no channels, an absurd rate or channel count).
  bool push(const AVFrame* frame, Sink& sink);
  void flush(Sink& sink);

 private:
  bool matches(const AVFrame* frame) const;
  bool configure(const AVFrame* frame);
  void convert(const std::uint8_t* const* input, int count, Sink& sink);

  SwrPtr swr_;
  AVChannelLayout layout_{};
  int rate_ = 0;
  int format_ = -1;
  int output_rate_;
  std::vector<float> buffer_;
};

}  // namespace mediagen::engines::intake
