#pragma once
// The music engine's master bus: the synthesizer's float stereo in, 16-bit stereo PCM out, block by
// block, so a five-minute piece never sits in memory whole (the bus holds about 3 s). In order:
//   leveller  a slow gain that brings the RMS over a 3-s window centred on each moment to
//             target_rms (within min_gain..max_gain), so a sparse piano piece and a drum and bass
//             track play at a similar loudness; its gain glides from chunk to chunk;
//   limiter   a look-ahead peak limiter on chunks of kChunkFrames: a chunk's gain ramps, from the
//             end of the chunk before, to the lowest of its own and the next chunk's safe gains,
//             so no sample exceeds the ceiling; it recovers at kReleaseDbPerSecond;
//   fades     a short fade-in and a raised-cosine fade-out that reaches zero at the last frame;
//   int16     rounded and clipped.
// The output lags the input; finish() flushes it.
#include <cstdint>
#include <deque>
#include <functional>
#include <span>
#include <vector>

namespace mediagen::engines::music {

struct MasterOptions {
  std::int64_t total_frames = 0;  // frames the piece has; the fade-out ends at the last
  std::int64_t fade_in_frames = 0;
  std::int64_t fade_out_frames = 0;
  double target_rms = 0.126;  // -18 dBFS
  double min_gain = 0.5;
  double max_gain = 16.0;
  double ceiling = 0.84;  // -1.5 dBFS: MP3 encoding may add a few tenths of a dB to peaks
};

class MasterBus {
 public:
  static constexpr std::size_t kChunkFrames = 512;
  static constexpr std::size_t kLevelReachChunks = 130;  // the window's reach either side: ~1.5 s
  static constexpr double kReleaseDbPerSecond = 20.0;
  using Sink = std::function<bool(std::span<const std::int16_t> interleaved)>;  // false stops

  MasterBus(const MasterOptions& options, Sink sink);
  // Frames of left and right (same length). False when the sink refused.
  bool push(std::span<const float> left, std::span<const float> right);
  bool finish();

  double lowest_limiter_gain() const { return lowest_limiter_gain_; }  // for tests

 private:
  struct Chunk {
    std::vector<float> samples;  // interleaved
    double energy = 0;           // sum of squares
  };
  bool add_chunk();
  bool level_next();
  bool limit(std::vector<float> samples);
  bool emit_pending(double end_gain);

  MasterOptions options_;
  Sink sink_;
  double release_per_chunk_;
  std::vector<float> filling_;
  // Leveller: the chunks within reach of the next one to level (window_[current_]).
  std::deque<Chunk> window_;
  std::size_t current_ = 0;
  double window_energy_ = 0;
  std::size_t window_samples_ = 0;
  double level_gain_ = -1;  // the last chunk's; -1 before the first
  // Limiter: the chunk waiting for the next one's peak.
  std::vector<float> pending_;
  double pending_target_ = 1.0;
  double start_gain_ = 1.0;
  bool have_pending_ = false;
  std::int64_t emitted_frames_ = 0;
  std::vector<std::int16_t> out_;
  double lowest_limiter_gain_ = 1.0;
};

}  // namespace mediagen::engines::music
