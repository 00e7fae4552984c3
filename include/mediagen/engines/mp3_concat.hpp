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
// Pure functions: no I/O; safe from any number of threads.
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

// Walks one stream; refuses it as described above.
boost::system::result<Mp3Frames, EngineFailure> scan_mp3(std::string_view stream);

// The stream's length as a decoder plays it: frames * samples_per_frame / sample_rate, rounded
// to the millisecond (the same rounding as Mp3Stream::duration_ms).
boost::system::result<std::int64_t, EngineFailure> mp3_duration_ms(std::string_view stream);

// The streams joined in order, after every one passed scan_mp3 and all agree on sample rate and
// channel mode.
boost::system::result<std::string, EngineFailure> concat_mp3(std::span<const std::string_view> streams);

}  // namespace mediagen::engines
