#pragma once
// Audio intake: an uploaded file's bytes to analysis PCM (16 kHz mono float), for voice search
// by sample and voice clones.
//
// The type is judged by content only (libmagic on the first bytes, then FFmpeg probing restricted
// to an allow-list of demuxers and decoders); a file name or Content-Type is never consulted.
// Accepted: WAV (PCM), MP3, Ogg (Vorbis, Opus, FLAC), FLAC, MP4/M4A (AAC, ALAC), ADTS AAC and
// WebM/Matroska (Opus, Vorbis). FFmpeg reads from memory only: no protocol, file or network.
//
// Work and memory are bounded whatever the file claims: the output holds at most max_seconds of
// audio, the demuxer reads at most max_packets packets, and decoding gives up after
// max_decode_time of wall time (a file that declares ten hours but holds one minute is read to
// its real end; a file that makes the demuxer spin ends at the cap).
//
// Thread safety: read_audio may run in several threads at once (each call owns its FFmpeg
// contexts; libmagic gets one handle per thread, loaded on that thread's first call).
#include <chrono>
#include <optional>
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include <boost/system/result.hpp>

namespace mediagen::engines {

inline constexpr int kAnalysisSampleRate = 16000;

struct AnalysisAudio {
  std::vector<float> samples;  // mono, -1..1, at sample_rate
  int sample_rate = kAnalysisSampleRate;  // IntakeLimits::output_rate
  double seconds = 0;          // samples.size() / sample_rate
  bool truncated = false;      // more audio followed max_seconds (or a work cap) and was not decoded
  std::string format;          // the container by content: "wav", "mp3", "ogg", "flac", "mp4", "aac", "webm", "matroska"
};

struct IntakeLimits {
  double max_seconds = 60;                          // audio kept; the rest sets `truncated`
  std::size_t max_input_bytes = 50 * 1024 * 1024;   // larger input is refused unread
  std::int64_t max_packets = 200000;                // demuxed packets of any stream
  std::chrono::milliseconds max_decode_time{10000};  // wall time, probing included
  int output_rate = kAnalysisSampleRate;             // Hz of AnalysisAudio::samples (8000..48000)
};

enum class IntakeRefusalKind {
  // Not audio by content, a container or codec outside the allow-list, no audio stream, a
  // stream that cannot be decoded or whose frames declare an absurd shape (over 32 channels, a
  // rate outside 1..768 kHz), input over max_input_bytes, or a work cap reached before the
  // first sample. Callers answer 422
  // source_file_unsupported.
  unsupported,
  // Zero bytes, or an audio file from which no sample could be decoded (a header with no
  // data). Callers answer 422 source_file_required.
  empty,
};
std::string_view to_string(IntakeRefusalKind kind);

struct IntakeRefusal {
  IntakeRefusalKind kind;
  std::string detail;  // for logs, in English; never shown to the caller verbatim

  static IntakeRefusal unsupported(std::string detail) { return {IntakeRefusalKind::unsupported, std::move(detail)}; }
  static IntakeRefusal empty(std::string detail) { return {IntakeRefusalKind::empty, std::move(detail)}; }
};

// The MIME type libmagic sees in the first bytes of `bytes` ("application/octet-stream" when it
// knows nothing), and whether intake accepts that type for decoding.
std::string sniff_mime_type(std::string_view bytes);
bool is_accepted_mime_type(std::string_view mime);

// The check an upload gets before anything is charged or stored: its type by content, then its
// first second decoded (within two seconds of work), so a header with nothing after it is refused
// at once rather than by a worker later. nullopt: audio. Blocking work: not for an I/O thread.
std::optional<IntakeRefusal> check_upload(std::string_view bytes);

// Decodes the first audio stream of `bytes` to AnalysisAudio. A decode error part way through
// keeps what was decoded before it (a cut-off upload is still a sample); none at all is a
// refusal.
boost::system::result<AnalysisAudio, IntakeRefusal> read_audio(std::string_view bytes, const IntakeLimits& limits = {});

}  // namespace mediagen::engines

// FFmpeg's objects owned (the audio intake reads with them, the OpenAI-compatible surface writes
// with them), and the one process-wide setting both rely on.
extern "C" {
#include <libavcodec/avcodec.h>
#include <libavformat/avformat.h>
#include <libavutil/audio_fifo.h>
#include <libswresample/swresample.h>
}

#include <memory>

namespace mediagen::engines::ffmpeg {

struct IoFree {
  void operator()(AVIOContext* io) const;  // also frees the buffer FFmpeg may have replaced
};
struct FormatClose {
  void operator()(AVFormatContext* f) const { avformat_close_input(&f); }
};
struct CodecFree {
  void operator()(AVCodecContext* c) const { avcodec_free_context(&c); }
};
struct ParserFree {
  void operator()(AVCodecParserContext* p) const { av_parser_close(p); }
};
struct PacketFree {
  void operator()(AVPacket* p) const { av_packet_free(&p); }
};
struct FrameFree {
  void operator()(AVFrame* f) const { av_frame_free(&f); }
};
struct SwrFree {
  void operator()(SwrContext* s) const { swr_free(&s); }
};
struct FifoFree {
  void operator()(AVAudioFifo* f) const { av_audio_fifo_free(f); }
};
using IoPtr = std::unique_ptr<AVIOContext, IoFree>;
using FormatPtr = std::unique_ptr<AVFormatContext, FormatClose>;
using CodecPtr = std::unique_ptr<AVCodecContext, CodecFree>;
using ParserPtr = std::unique_ptr<AVCodecParserContext, ParserFree>;
using PacketPtr = std::unique_ptr<AVPacket, PacketFree>;
using FramePtr = std::unique_ptr<AVFrame, FrameFree>;
using SwrPtr = std::unique_ptr<SwrContext, SwrFree>;
using FifoPtr = std::unique_ptr<AVAudioFifo, FifoFree>;

// Largest single block FFmpeg may allocate: above any input we accept. Demuxers trust size
// fields: a 100-byte WAV whose LIST chunk claims 2 GiB had FFmpeg zero 2 GiB for it; with this
// cap such a file is refused instead.
inline constexpr std::size_t kMaxBlock = std::size_t{64} * 1024 * 1024;

// FFmpeg silenced (its warnings about hostile files are not worth a line each) and its blocks
// capped at kMaxBlock, once for the process; every call site that hands FFmpeg outside bytes
// calls this first.
void quiet_and_bounded();

}  // namespace mediagen::engines::ffmpeg
