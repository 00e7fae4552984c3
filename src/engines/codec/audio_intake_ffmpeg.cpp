#include "audio_intake_ffmpeg.hpp"

extern "C" {
#include <libavutil/error.h>
#include <libavutil/mem.h>
}

#include <algorithm>
#include <cstdio>
#include <cstring>

#include "mediagen/engines/codec.hpp"

namespace mediagen::engines::intake {
namespace {

constexpr int kMaxChannels = 32;
constexpr int kMinRate = 1000;
constexpr int kMaxRate = 768000;

}  // namespace


int read_memory(void* opaque, std::uint8_t* buffer, int size) {
  auto* in = static_cast<MemoryInput*>(opaque);
  const auto left = static_cast<std::int64_t>(in->bytes.size()) - in->position;
  if (left <= 0 || size <= 0) return AVERROR_EOF;
  const auto count = std::min<std::int64_t>(left, size);
  std::memcpy(buffer, in->bytes.data() + in->position, static_cast<std::size_t>(count));
  in->position += count;
  return static_cast<int>(count);
}

std::int64_t seek_memory(void* opaque, std::int64_t offset, int whence) {
  auto* in = static_cast<MemoryInput*>(opaque);
  const auto size = static_cast<std::int64_t>(in->bytes.size());
  whence &= ~AVSEEK_FORCE;
  if (whence == AVSEEK_SIZE) return size;
  // Offsets come from the file: checked against the size before any addition can overflow.
  if (offset > size || offset < -size) return AVERROR(EINVAL);
  std::int64_t target = 0;
  switch (whence) {
    case SEEK_SET: target = offset; break;
    case SEEK_CUR: target = in->position + offset; break;
    case SEEK_END: target = size + offset; break;
    default: return AVERROR(EINVAL);
  }
  if (target < 0 || target > size) return AVERROR(EINVAL);
  in->position = target;
  return target;
}

void Sink::add(const float* data, std::size_t count) {
  if (count == 0 || truncated_) return;
  const std::size_t room = capacity_ - samples_.size();
  if (count > room) {
    truncated_ = true;
    count = room;
  }
  samples_.insert(samples_.end(), data, data + count);
}

bool Resampler::matches(const AVFrame* frame) const {
  if (!swr_ || frame->sample_rate != rate_ || frame->format != format_) return false;
  // An unspecified layout was replaced by the default one of its channel count in configure.
  if (frame->ch_layout.order == AV_CHANNEL_ORDER_UNSPEC) return frame->ch_layout.nb_channels == layout_.nb_channels;
  return av_channel_layout_compare(&frame->ch_layout, &layout_) == 0;
}

bool Resampler::configure(const AVFrame* frame) {
  swr_.reset();
  av_channel_layout_uninit(&layout_);
  const int channels = frame->ch_layout.nb_channels;
  if (channels < 1 || channels > kMaxChannels) return false;
  if (frame->sample_rate < kMinRate || frame->sample_rate > kMaxRate) return false;
  if (frame->ch_layout.order == AV_CHANNEL_ORDER_UNSPEC) {
    av_channel_layout_default(&layout_, channels);
  } else if (av_channel_layout_copy(&layout_, &frame->ch_layout) < 0) {
    return false;
  }
  rate_ = frame->sample_rate;
  format_ = frame->format;
  AVChannelLayout mono = AV_CHANNEL_LAYOUT_MONO;
  SwrContext* raw = nullptr;
  if (swr_alloc_set_opts2(&raw, &mono, AV_SAMPLE_FMT_FLT, output_rate_, &layout_,
                          static_cast<AVSampleFormat>(format_), rate_, 0, nullptr) < 0) {
    return false;
  }
  swr_.reset(raw);
  if (swr_init(swr_.get()) < 0) {
    swr_.reset();
    return false;
  }
  return true;
}

bool Resampler::push(const AVFrame* frame, Sink& sink) {
  if (frame->nb_samples <= 0) return true;
  if (!matches(frame)) {
    flush(sink);
    if (!configure(frame)) return false;
  }
  convert(frame->extended_data, frame->nb_samples, sink);
  return true;
}

void Resampler::flush(Sink& sink) {
  if (swr_) convert(nullptr, 0, sink);
}

void Resampler::convert(const std::uint8_t* const* input, int count, Sink& sink) {
  const int room = swr_get_out_samples(swr_.get(), count);
  if (room <= 0) return;
  buffer_.resize(static_cast<std::size_t>(room));
  std::uint8_t* out[1] = {reinterpret_cast<std::uint8_t*>(buffer_.data())};
  const int got = swr_convert(swr_.get(), out, room, const_cast<const std::uint8_t**>(input), count);
  if (got > 0) sink.add(buffer_.data(), static_cast<std::size_t>(got));
}

}  // namespace mediagen::engines::intake
