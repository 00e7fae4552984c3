#pragma once
// Stitching MP3 streams without re-encoding. The chunks' streams (encode_mp3 / finish_chunk:
// frames only, each starting with an empty bit reservoir) are joined byte for byte, which gives
// one valid stream and costs no CPU beyond checking the frame headers.
//
// What is checked, so a broken chunk never reaches a customer's file: every stream is walked
// frame by frame from its first byte (MPEG-1/2/2.5 Layer III headers: sync, version, layer,
// bitrate, sample rate, padding give each frame's length) to its last byte; all frames of all
// streams share one sample rate and one channel mode. Refused as technical failures: no streams,
// an empty stream, bytes that are not a frame header (ID3 tags included), a last frame cut
// short, a Xing/Info/VBRI tag frame (it would state the length of the first chunk only), a
// sample rate or channel mode that differs from the first frame's. Bitrates may differ.
// Pure functions (and a joiner object per join): no I/O; safe from any number of threads.
#include <cstdint>
#include <span>
#include <string>
#include <string_view>

#include <boost/system/result.hpp>

#include "mediagen/engines/engine.hpp"

namespace mediagen::engines {

// What the frames of a checked stream add up to.
struct Mp3Frames {
  std::int64_t frames = 0;
  int sample_rate = 0;
  int samples_per_frame = 0;         // 1152 (MPEG-1) or 576 (MPEG-2/2.5)
  int channels = 0;                  // 1 or 2
  std::int64_t decoded_samples = 0;  // frames * samples_per_frame (per channel)
  std::int64_t duration_ms = 0;      // decoded_samples in milliseconds, rounded
};

// The same checks over streams that arrive in pieces, for joining files far larger than memory:
// the stitcher reads each chunk's file in bounded pieces, hands them here and writes out what is
// accepted. Holds only counters; the caller keeps the unaccepted tail of the current stream
// (less than one frame: at most kMaxFrameBytes) and hands it back in front of the next piece.
class Mp3Joiner {
 public:
  // The longest Layer III frame: 320 kbit/s at 32 kHz (MPEG-1), padded.
  static constexpr std::size_t kMaxFrameBytes = 1441;

  // Of `bytes` (the current stream's unaccepted tail, then its next piece), how many leading
  // bytes are whole frames that passed the checks: write those out, keep the rest. Refused as
  // scan_mp3 refuses, or when the stream's format differs from the first stream's.
  boost::system::result<std::size_t, EngineFailure> take(std::string_view bytes);

  // The current stream ended and `tail` was never accepted: refused unless the tail is empty and
  // the stream had bytes. Returns the stream's totals; the next take() starts the next stream.
  boost::system::result<Mp3Frames, EngineFailure> end_stream(std::string_view tail);

  // The totals of the streams ended so far, as one stream.
  const Mp3Frames& joined() const { return joined_; }
  int streams() const { return streams_; }

 private:
  struct StreamFormat {
    int sample_rate = 0;
    int channel_mode = 0;
    bool operator==(const StreamFormat&) const = default;
  };
  StreamFormat format_;     // of the first frame of the first stream
  Mp3Frames stream_;        // the current stream so far (frames and format)
  std::uint64_t offset_ = 0;  // bytes of the current stream accepted
  Mp3Frames joined_;
  int streams_ = 0;
};

// Walks one stream; refuses it as described above.
boost::system::result<Mp3Frames, EngineFailure> scan_mp3(std::string_view stream);

// The stream's length as a decoder plays it: frames * samples_per_frame / sample_rate, rounded
// to the millisecond (the same rounding as Mp3Stream::duration_ms).
boost::system::result<std::int64_t, EngineFailure> mp3_duration_ms(std::string_view stream);

// The streams joined in order, after every one passed scan_mp3 and all agree on sample rate and
// channel mode.
boost::system::result<std::string, EngineFailure> concat_mp3(std::span<const std::string_view> streams);

}  // namespace mediagen::engines
