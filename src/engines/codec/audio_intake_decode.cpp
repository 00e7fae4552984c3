// Audio intake, FFmpeg side: a custom AVIOContext over the upload's bytes, probing limited to
// the accepted demuxers, the first audio stream decoded and resampled to 16 kHz mono float.
#include "audio_intake_decode.hpp"

extern "C" {
#include <libavcodec/avcodec.h>
#include <libavformat/avformat.h>
#include <libavutil/channel_layout.h>
#include <libavutil/error.h>
#include <libavutil/log.h>
#include <libavutil/mem.h>
#include <libswresample/swresample.h>
}

#include <algorithm>
#include <array>
#include <cmath>
#include <cstring>
#include <memory>
#include <mutex>

#include "audio_intake_ffmpeg.hpp"

namespace mediagen::engines::intake {
namespace {

using Clock = std::chrono::steady_clock;

// Demuxer names as av_match_list compares them (any one name of "mov,mp4,m4a,3gp,3g2,mj2" and
// "matroska,webm" matches).
constexpr const char* kDemuxers = "wav,mp3,ogg,flac,mov,matroska,aac";
// Decoders find_stream_info may open while probing; video decoders are kept out, so a video
// track costs no decoding.
constexpr const char* kDecoders =
    "pcm_s16le,pcm_s16be,pcm_s24le,pcm_s24be,pcm_s32le,pcm_s32be,pcm_f32le,pcm_f32be,pcm_f64le,"
    "pcm_u8,pcm_alaw,pcm_mulaw,mp3,mp3float,vorbis,opus,flac,aac,aac_fixed,alac";
constexpr std::array kCodecs = {
    AV_CODEC_ID_PCM_S16LE, AV_CODEC_ID_PCM_S16BE, AV_CODEC_ID_PCM_S24LE, AV_CODEC_ID_PCM_S24BE,
    AV_CODEC_ID_PCM_S32LE, AV_CODEC_ID_PCM_S32BE, AV_CODEC_ID_PCM_F32LE, AV_CODEC_ID_PCM_F32BE,
    AV_CODEC_ID_PCM_F64LE, AV_CODEC_ID_PCM_U8,    AV_CODEC_ID_PCM_ALAW,  AV_CODEC_ID_PCM_MULAW,
    AV_CODEC_ID_MP3,       AV_CODEC_ID_VORBIS,    AV_CODEC_ID_OPUS,      AV_CODEC_ID_FLAC,
    AV_CODEC_ID_AAC,       AV_CODEC_ID_ALAC,
};
constexpr int kIoBufferSize = 32 * 1024;
constexpr std::int64_t kProbeBytes = 1 << 20;

std::string av_error(int code) {
  std::array<char, AV_ERROR_MAX_STRING_SIZE> text{};
  av_strerror(code, text.data(), text.size());
  return text.data();
}

int interrupted(void* opaque) { return Clock::now() > *static_cast<const Clock::time_point*>(opaque) ? 1 : 0; }

struct Session {
  MemoryInput input;
  Clock::time_point deadline;
  IoPtr io;
  FormatPtr format;  // declared after io: closed before the IO it reads through is freed
  CodecPtr codec;
  int stream = -1;
  bool shape_refused = false;  // a decoded frame had an absurd rate or channel count
};

boost::system::result<void, IntakeRefusal> open_container(Session& s) {
  auto* buffer = static_cast<unsigned char*>(av_malloc(kIoBufferSize));
  if (buffer == nullptr) return IntakeRefusal::unsupported("out of memory");
  s.io.reset(avio_alloc_context(buffer, kIoBufferSize, 0, &s.input, &read_memory, nullptr, &seek_memory));
  if (!s.io) {
    av_free(buffer);
    return IntakeRefusal::unsupported("out of memory");
  }
  AVFormatContext* raw = avformat_alloc_context();
  if (raw == nullptr) return IntakeRefusal::unsupported("out of memory");
  raw->pb = s.io.get();
  raw->flags |= AVFMT_FLAG_CUSTOM_IO;
  raw->interrupt_callback = {&interrupted, &s.deadline};
  raw->probesize = kProbeBytes;
  raw->max_analyze_duration = 5 * AV_TIME_BASE;
  AVDictionary* options = nullptr;
  av_dict_set(&options, "format_whitelist", kDemuxers, 0);
  av_dict_set(&options, "codec_whitelist", kDecoders, 0);
  // Nothing is opened by name: the IO above is the only input a demuxer may read.
  av_dict_set(&options, "protocol_whitelist", "none", 0);
  const int rc = avformat_open_input(&raw, nullptr, nullptr, &options);  // frees raw on failure
  av_dict_free(&options);
  if (rc < 0) return IntakeRefusal::unsupported("not an accepted audio container: " + av_error(rc));
  s.format.reset(raw);
  // A failure here only means some stream stayed unexamined; the audio stream is checked below.
  (void)avformat_find_stream_info(s.format.get(), nullptr);
  return {};
}

boost::system::result<void, IntakeRefusal> open_decoder(Session& s) {
  const AVStream* chosen = nullptr;
  for (unsigned i = 0; i < s.format->nb_streams && chosen == nullptr; ++i) {
    const AVStream* st = s.format->streams[i];
    if (st->codecpar->codec_type == AVMEDIA_TYPE_AUDIO) chosen = st;
  }
  if (chosen == nullptr) return IntakeRefusal::unsupported("the file has no audio stream");
  const AVCodecID id = chosen->codecpar->codec_id;
  if (std::find(kCodecs.begin(), kCodecs.end(), id) == kCodecs.end()) {
    return IntakeRefusal::unsupported(std::string{"audio codec not accepted: "} + avcodec_get_name(id));
  }
  const AVCodec* decoder = avcodec_find_decoder(id);
  if (decoder == nullptr) return IntakeRefusal::unsupported("no decoder for the audio stream");
  s.codec.reset(avcodec_alloc_context3(decoder));
  if (!s.codec) return IntakeRefusal::unsupported("out of memory");
  if (avcodec_parameters_to_context(s.codec.get(), chosen->codecpar) < 0) {
    return IntakeRefusal::unsupported("the audio stream's parameters are unusable");
  }
  s.codec->thread_count = 1;  // the caller's thread does the work; no pool per upload
  s.codec->pkt_timebase = chosen->time_base;
  if (const int rc = avcodec_open2(s.codec.get(), decoder, nullptr); rc < 0) {
    return IntakeRefusal::unsupported("the audio stream cannot be decoded: " + av_error(rc));
  }
  s.stream = chosen->index;
  return {};
}

// Receives every frame the decoder has ready; false once the sink wants nothing more.
bool drain(Session& s, AVFrame* frame, Resampler& resampler, Sink& sink) {
  while (avcodec_receive_frame(s.codec.get(), frame) == 0) {
    const bool usable = resampler.push(frame, sink);
    av_frame_unref(frame);
    s.shape_refused = s.shape_refused || !usable;
    if (!usable || sink.done()) return false;
  }
  return true;
}

// Reads packets until the end, the sink is full, or a work cap; a corrupt packet is skipped, as
// players do, and a read error ends the stream where it is.
void decode_stream(Session& s, const IntakeLimits& limits, Sink& sink) {
  PacketPtr packet{av_packet_alloc()};
  FramePtr frame{av_frame_alloc()};
  if (!packet || !frame) return;
  Resampler resampler(limits.output_rate);
  bool more = true;
  for (std::int64_t n = 0; more; ++n) {
    if (n >= limits.max_packets || Clock::now() > s.deadline) {
      sink.cut();  // a work cap ended the stream early: what follows was not heard
      return;
    }
    if (av_read_frame(s.format.get(), packet.get()) < 0) break;
    if (packet->stream_index == s.stream) {
      (void)avcodec_send_packet(s.codec.get(), packet.get());
      more = drain(s, frame.get(), resampler, sink);
    }
    av_packet_unref(packet.get());
  }
  if (!more) return;
  if (avcodec_send_packet(s.codec.get(), nullptr) == 0 && !drain(s, frame.get(), resampler, sink)) return;
  resampler.flush(sink);
}

std::string container_name(const AVInputFormat* format) {
  const std::string_view name = format->name;
  if (name.find("mp4") != std::string_view::npos) return "mp4";
  if (name.find("webm") != std::string_view::npos) return "webm";
  return std::string{name};
}

}  // namespace

boost::system::result<AnalysisAudio, IntakeRefusal> decode(std::string_view bytes, const IntakeLimits& limits) {
  ffmpeg::quiet_and_bounded();
  Session s{MemoryInput{bytes}, Clock::now() + limits.max_decode_time, {}, {}, {}, -1, false};
  if (auto opened = open_container(s); !opened) return opened.error();
  if (auto opened = open_decoder(s); !opened) return opened.error();
  const int rate = std::clamp(limits.output_rate, 8000, 48000);
  const auto cap = static_cast<std::size_t>(std::max(0.0, limits.max_seconds) * rate);
  Sink sink{cap};
  IntakeLimits shaped = limits;
  shaped.output_rate = rate;
  decode_stream(s, shaped, sink);
  if (sink.samples().empty()) {
    // A work cap reached before the first sample says nothing about the audio; it is not "empty".
    if (sink.truncated()) return IntakeRefusal::unsupported("no audio decoded within the work limits");
    if (s.shape_refused) return IntakeRefusal::unsupported("the audio has an unusable rate or channel count");
    return IntakeRefusal::empty("no audio samples could be decoded");
  }
  AnalysisAudio audio;
  audio.truncated = sink.truncated();
  audio.samples = std::move(sink).take();
  // Lossy decoders overshoot full scale, and float PCM may carry NaN or infinities.
  for (float& v : audio.samples) v = std::isfinite(v) ? std::clamp(v, -1.0f, 1.0f) : 0.0f;
  audio.sample_rate = rate;
  audio.seconds = static_cast<double>(audio.samples.size()) / rate;
  audio.format = container_name(s.format->iformat);
  return audio;
}

}  // namespace mediagen::engines::intake
