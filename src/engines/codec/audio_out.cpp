#include "mediagen/engines/codec/audio_out.hpp"

#include "mediagen/engines/codec.hpp"

extern "C" {
#include <libavcodec/avcodec.h>
#include <libavformat/avformat.h>
#include <libavutil/audio_fifo.h>
#include <libavutil/channel_layout.h>
#include <libavutil/log.h>
#include <libavutil/mem.h>
#include <libswresample/swresample.h>
}

#include <algorithm>
#include <cstring>
#include <functional>
#include <mutex>
#include <vector>

namespace mediagen::engines {
namespace {

using ffmpeg::CodecPtr;
using ffmpeg::FifoPtr;
using ffmpeg::FramePtr;
using ffmpeg::PacketPtr;
using ffmpeg::ParserPtr;
using ffmpeg::SwrPtr;

void put_le(std::string& out, std::uint32_t value, int bytes) {
  for (int i = 0; i < bytes; ++i) out.push_back(static_cast<char>((value >> (8 * i)) & 0xff));
}

class Mp3Out final : public AudioOut {
 public:
  std::optional<std::string> feed(std::string_view mp3) override { return std::string(mp3); }
  std::optional<std::string> finish() override { return std::string(); }
};

// MP3 in, mono samples of one rate and format out (to `sink`), whatever the chunks' rate.
class Mp3Decoder {
 public:
  using Sink = std::function<bool(const std::uint8_t* const* data, int samples)>;

  bool open(int out_rate, AVSampleFormat out_format) {
    ffmpeg::quiet_and_bounded();
    const AVCodec* codec = avcodec_find_decoder(AV_CODEC_ID_MP3);
    if (!codec) return false;
    parser_.reset(av_parser_init(codec->id));
    ctx_.reset(avcodec_alloc_context3(codec));
    packet_.reset(av_packet_alloc());
    frame_.reset(av_frame_alloc());
    if (!parser_ || !ctx_ || !packet_ || !frame_ || avcodec_open2(ctx_.get(), codec, nullptr) < 0) return false;
    out_rate_ = out_rate;
    out_format_ = out_format;
    return true;
  }

  // Feeds bytes (or, empty with flush, drains the parser and the decoder).
  bool feed(std::string_view bytes, bool flush, const Sink& sink) {
    input_.assign(bytes.begin(), bytes.end());
    input_.resize(bytes.size() + AV_INPUT_BUFFER_PADDING_SIZE, 0);
    const std::uint8_t* data = input_.data();
    int left = static_cast<int>(bytes.size());
    while (left > 0 || flush) {
      std::uint8_t* out = nullptr;
      int out_size = 0;
      const int used = av_parser_parse2(parser_.get(), ctx_.get(), &out, &out_size, left > 0 ? data : nullptr, left,
                                        AV_NOPTS_VALUE, AV_NOPTS_VALUE, 0);
      if (used < 0) return false;
      data += used;
      left -= used;
      if (out_size > 0) {
        packet_->data = out;
        packet_->size = out_size;
        if (!decode(packet_.get(), sink)) return false;
      }
      if (flush && left <= 0 && out_size == 0) break;
    }
    if (flush) return decode(nullptr, sink) && drain_resampler(sink);
    return true;
  }

 private:
  bool decode(AVPacket* packet, const Sink& sink) {
    // A frame that does not decode is skipped, as players do; only a broken decoder stops.
    if (avcodec_send_packet(ctx_.get(), packet) < 0 && packet == nullptr) return true;
    for (;;) {
      const int got = avcodec_receive_frame(ctx_.get(), frame_.get());
      if (got == AVERROR(EAGAIN) || got == AVERROR_EOF) return true;
      if (got < 0) return false;
      if (!convert(frame_.get(), sink)) return false;
    }
  }

  bool configure(const AVFrame* frame) {
    SwrContext* raw = nullptr;
    AVChannelLayout mono = AV_CHANNEL_LAYOUT_MONO;
    if (swr_alloc_set_opts2(&raw, &mono, out_format_, out_rate_, const_cast<AVChannelLayout*>(&frame->ch_layout),
                            static_cast<AVSampleFormat>(frame->format), frame->sample_rate, 0, nullptr) < 0) {
      return false;
    }
    swr_.reset(raw);
    in_rate_ = frame->sample_rate;
    in_channels_ = frame->ch_layout.nb_channels;
    in_format_ = frame->format;
    return swr_init(swr_.get()) >= 0;
  }

  bool convert(const AVFrame* frame, const Sink& sink) {
    if (frame->sample_rate <= 0 || frame->ch_layout.nb_channels <= 0 || frame->ch_layout.nb_channels > 2) return false;
    // The resampler reads the layout it was made for: a frame of another rate, channel count or
    // sample format (hostile or odd MP3 streams switch mid-stream) needs a new one.
    if (!swr_ || frame->sample_rate != in_rate_ || frame->ch_layout.nb_channels != in_channels_ ||
        frame->format != in_format_) {
      if (swr_ && !drain_resampler(sink)) return false;
      if (!configure(frame)) return false;
    }
    const int capacity = swr_get_out_samples(swr_.get(), frame->nb_samples);
    if (capacity < 0) return false;
    buffer_.resize(static_cast<std::size_t>(capacity) * av_get_bytes_per_sample(out_format_) + 64);
    std::uint8_t* out = buffer_.data();
    const int n = swr_convert(swr_.get(), &out, capacity, const_cast<const std::uint8_t**>(frame->extended_data), frame->nb_samples);
    if (n < 0) return false;
    return n == 0 || sink(&out, n);
  }

  bool drain_resampler(const Sink& sink) {
    if (!swr_) return true;
    const int capacity = swr_get_out_samples(swr_.get(), 0);
    if (capacity <= 0) return true;
    buffer_.resize(static_cast<std::size_t>(capacity) * av_get_bytes_per_sample(out_format_) + 64);
    std::uint8_t* out = buffer_.data();
    const int n = swr_convert(swr_.get(), &out, capacity, nullptr, 0);
    return n <= 0 || sink(&out, n);
  }

  ParserPtr parser_;
  CodecPtr ctx_;
  PacketPtr packet_;
  FramePtr frame_;
  SwrPtr swr_;
  int in_rate_ = 0;
  int in_channels_ = 0;
  int in_format_ = -1;
  int out_rate_ = 24000;
  AVSampleFormat out_format_ = AV_SAMPLE_FMT_S16;
  std::vector<std::uint8_t> input_;
  std::vector<std::uint8_t> buffer_;
};

// pcm and wav: the decoded samples as they are.
class PcmOut final : public AudioOut {
 public:
  PcmOut(bool wav, int rate) : wav_(wav), rate_(rate) {}
  bool open() { return decoder_.open(rate_, AV_SAMPLE_FMT_S16); }

  std::optional<std::string> feed(std::string_view mp3) override { return run(mp3, false); }
  std::optional<std::string> finish() override { return run({}, true); }

 private:
  std::optional<std::string> run(std::string_view mp3, bool flush) {
    std::string out;
    if (wav_ && !header_sent_) {
      out = streaming_wav_header(rate_, 1);
      header_sent_ = true;
    }
    auto sink = [&out](const std::uint8_t* const* data, int samples) {
      out.append(reinterpret_cast<const char*>(data[0]), static_cast<std::size_t>(samples) * 2);
      return true;
    };
    if (!decoder_.feed(mp3, flush, sink)) return std::nullopt;
    return out;
  }

  bool wav_;
  int rate_;
  bool header_sent_ = false;
  Mp3Decoder decoder_;
};

struct Container {
  AVFormatContext* format = nullptr;
  ~Container() {
    if (!format) return;
    if (format->pb) {
      av_freep(&format->pb->buffer);
      avio_context_free(&format->pb);
    }
    avformat_free_context(format);
  }
};

// opus, flac, aac: decoded samples gathered into the encoder's frame size, encoded, muxed into
// memory.
class EncodedOut final : public AudioOut {
 public:
  // mp3 is written as bare frames (no ID3 tag, no Xing frame), so the bytes stream as they come.
  bool open(const char* muxer, std::initializer_list<const char*> encoders, int rate, std::int64_t bit_rate) {
    ffmpeg::quiet_and_bounded();
    const AVCodec* codec = nullptr;
    for (const char* name : encoders) {
      if ((codec = avcodec_find_encoder_by_name(name))) break;
    }
    if (!codec || !codec->sample_fmts) return false;
    if (avformat_alloc_output_context2(&box_.format, nullptr, muxer, nullptr) < 0 || !box_.format) return false;
    constexpr int kIoBytes = 16 * 1024;
    auto* io_buffer = static_cast<unsigned char*>(av_malloc(kIoBytes));
    if (!io_buffer) return false;
    box_.format->pb = avio_alloc_context(io_buffer, kIoBytes, 1, this, nullptr, &EncodedOut::write_packet, nullptr);
    if (!box_.format->pb) {
      av_free(io_buffer);
      return false;
    }
    box_.format->flags |= AVFMT_FLAG_CUSTOM_IO;
    stream_ = avformat_new_stream(box_.format, nullptr);
    ctx_.reset(avcodec_alloc_context3(codec));
    if (!stream_ || !ctx_) return false;
    format_ = codec->sample_fmts[0];
    ctx_->sample_fmt = format_;
    ctx_->sample_rate = rate;
    av_channel_layout_default(&ctx_->ch_layout, 1);
    ctx_->bit_rate = bit_rate;
    ctx_->time_base = AVRational{1, rate};
    if (box_.format->oformat->flags & AVFMT_GLOBALHEADER) ctx_->flags |= AV_CODEC_FLAG_GLOBAL_HEADER;
    if (avcodec_open2(ctx_.get(), codec, nullptr) < 0) return false;
    if (avcodec_parameters_from_context(stream_->codecpar, ctx_.get()) < 0) return false;
    stream_->time_base = ctx_->time_base;
    // Codecs without a frame size of their own (raw G.711) take 20 ms: the last one is padded.
    frame_size_ = ctx_->frame_size > 0 ? ctx_->frame_size : std::max(1, rate / 50);
    fifo_.reset(av_audio_fifo_alloc(format_, 1, frame_size_ * 2));
    packet_.reset(av_packet_alloc());
    frame_.reset(av_frame_alloc());
    if (!fifo_ || !packet_ || !frame_) return false;
    if (!decoder_.open(rate, format_)) return false;
    AVDictionary* options = nullptr;
    if (std::strcmp(muxer, "mp3") == 0) {
      av_dict_set(&options, "id3v2_version", "0", 0);
      av_dict_set(&options, "write_xing", "0", 0);
    }
    const int written = avformat_write_header(box_.format, &options);
    av_dict_free(&options);
    return written >= 0;
  }

  std::optional<std::string> feed(std::string_view mp3) override {
    if (!decoder_.feed(mp3, false, sink()) || !encode_ready(false)) return std::nullopt;
    return take();
  }

  std::optional<std::string> finish() override {
    if (!decoder_.feed({}, true, sink()) || !encode_ready(true)) return std::nullopt;
    if (!send(nullptr) || av_write_trailer(box_.format) < 0) return std::nullopt;
    return take();
  }

 private:
  // FFmpeg 5 declares the buffer non-const; it is only read.
  static int write_packet(void* opaque, std::uint8_t* data, int size) {
    static_cast<EncodedOut*>(opaque)->pending_.append(reinterpret_cast<const char*>(data), static_cast<std::size_t>(size));
    return size;
  }

  Mp3Decoder::Sink sink() {
    return [this](const std::uint8_t* const* data, int samples) {
      return av_audio_fifo_write(fifo_.get(), reinterpret_cast<void**>(const_cast<std::uint8_t**>(data)), samples) == samples;
    };
  }

  // Whole frames from the FIFO to the encoder; at the end, the last partial frame padded with
  // silence.
  bool encode_ready(bool last) {
    while (av_audio_fifo_size(fifo_.get()) >= frame_size_ || (last && av_audio_fifo_size(fifo_.get()) > 0)) {
      av_frame_unref(frame_.get());
      frame_->nb_samples = frame_size_;
      frame_->format = format_;
      frame_->sample_rate = ctx_->sample_rate;
      if (av_channel_layout_copy(&frame_->ch_layout, &ctx_->ch_layout) < 0) return false;
      if (av_frame_get_buffer(frame_.get(), 0) < 0) return false;
      av_samples_set_silence(frame_->extended_data, 0, frame_size_, 1, format_);
      if (av_audio_fifo_read(fifo_.get(), reinterpret_cast<void**>(frame_->extended_data), frame_size_) < 0) return false;
      frame_->pts = pts_;
      pts_ += frame_size_;
      if (!send(frame_.get())) return false;
    }
    return true;
  }

  bool send(const AVFrame* frame) {
    if (avcodec_send_frame(ctx_.get(), frame) < 0) return false;
    for (;;) {
      const int got = avcodec_receive_packet(ctx_.get(), packet_.get());
      if (got == AVERROR(EAGAIN) || got == AVERROR_EOF) return true;
      if (got < 0) return false;
      av_packet_rescale_ts(packet_.get(), ctx_->time_base, stream_->time_base);
      packet_->stream_index = stream_->index;
      if (av_write_frame(box_.format, packet_.get()) < 0) return false;
    }
  }

  std::string take() {
    avio_flush(box_.format->pb);
    std::string out = std::move(pending_);
    pending_.clear();
    return out;
  }

  Container box_;
  AVStream* stream_ = nullptr;
  CodecPtr ctx_;
  FifoPtr fifo_;
  PacketPtr packet_;
  FramePtr frame_;
  AVSampleFormat format_ = AV_SAMPLE_FMT_S16;
  int frame_size_ = 1024;
  std::int64_t pts_ = 0;
  Mp3Decoder decoder_;
  std::string pending_;
};

}  // namespace

std::string streaming_wav_header(int sample_rate, int channels) {
  std::string h = "RIFF";
  put_le(h, 0xFFFFFFFFu, 4);
  h += "WAVEfmt ";
  put_le(h, 16, 4);
  put_le(h, 1, 2);  // PCM
  put_le(h, static_cast<std::uint32_t>(channels), 2);
  put_le(h, static_cast<std::uint32_t>(sample_rate), 4);
  put_le(h, static_cast<std::uint32_t>(sample_rate * channels * 2), 4);
  put_le(h, static_cast<std::uint32_t>(channels * 2), 2);
  put_le(h, 16, 2);
  h += "data";
  put_le(h, 0xFFFFFFFFu, 4);
  return h;
}

std::unique_ptr<AudioOut> make_audio_out(const AudioOutSpec& spec) {
  switch (spec.kind) {
    case AudioOutKind::mp3_as_is: return std::make_unique<Mp3Out>();
    case AudioOutKind::pcm:
    case AudioOutKind::wav: {
      auto out = std::make_unique<PcmOut>(spec.kind == AudioOutKind::wav, spec.sample_rate);
      if (!out->open()) return nullptr;
      return out;
    }
    default: break;
  }
  auto out = std::make_unique<EncodedOut>();
  const std::int64_t bit_rate = std::int64_t{spec.bitrate_kbps} * 1000;
  bool opened = false;
  switch (spec.kind) {
    case AudioOutKind::ulaw: opened = out->open("mulaw", {"pcm_mulaw"}, spec.sample_rate, 0); break;
    case AudioOutKind::mp3: opened = out->open("mp3", {"libmp3lame"}, spec.sample_rate, bit_rate); break;
    case AudioOutKind::opus: opened = out->open("ogg", {"libopus", "opus"}, spec.sample_rate, bit_rate); break;
    case AudioOutKind::flac: opened = out->open("flac", {"flac"}, spec.sample_rate, 0); break;
    case AudioOutKind::aac: opened = out->open("adts", {"aac"}, spec.sample_rate, bit_rate); break;
    default: break;
  }
  if (!opened) return nullptr;
  return out;
}

std::unique_ptr<AudioOut> make_audio_out(const OutputFormat& format) {
  AudioOutSpec spec{.sample_rate = format.sample_rate, .bitrate_kbps = format.bitrate_kbps};
  switch (format.codec) {
    case OutputCodec::mp3: spec.kind = AudioOutKind::mp3; break;
    case OutputCodec::pcm: spec.kind = AudioOutKind::pcm; break;
    case OutputCodec::ulaw: spec.kind = AudioOutKind::ulaw; break;
    case OutputCodec::opus: spec.kind = AudioOutKind::opus; break;
  }
  return make_audio_out(spec);
}

}  // namespace mediagen::engines
