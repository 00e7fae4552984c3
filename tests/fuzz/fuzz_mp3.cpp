// Stitching: MP3 frame walking and joining (src/engines/mp3_concat.cpp). Input: one byte for the
// number of streams (1 + value % 3), a little-endian 16-bit length for each stream but the last
// (cut to what is left), then the streams' bytes. Properties:
//   - scan_mp3 and concat_mp3 never crash, whatever the bytes;
//   - a join succeeds exactly when every stream scans and all share the first one's sample rate
//     and channel count; its output is the streams' bytes in order, and it scans again to the
//     sum of the frames at the same sample rate;
//   - mp3_duration_ms agrees with the scan;
//   - the joiner fed in pieces (1 + size % 97 bytes, the stitcher's way: the unaccepted tail kept
//     and handed back in front of the next piece) accepts exactly what the whole join does, keeps
//     less than a frame, and totals the same.
#include <array>
#include <optional>
#include <span>
#include <string>
#include <string_view>

#include "fuzz_support.hpp"
#include "mediagen/engines/audio.hpp"

namespace {

using namespace mediagen::engines;
using mediagen::fuzz::Bytes;

constexpr std::size_t kMaxStreams = 3;

// The streams through one Mp3Joiner in pieces; nullopt when it refuses them.
std::optional<std::string> joined_in_pieces(std::span<const std::string_view> streams, std::size_t piece) {
  Mp3Joiner joiner;
  std::string out;
  std::int64_t samples = 0;
  for (const auto stream : streams) {
    std::string tail;
    for (std::size_t at = 0; at < stream.size(); at += piece) {
      tail.append(stream.substr(at, piece));
      const auto taken = joiner.take(tail);
      if (!taken) return std::nullopt;
      out.append(tail, 0, *taken);
      tail.erase(0, *taken);
      FUZZ_CHECK(tail.size() < Mp3Joiner::kMaxFrameBytes + piece);
    }
    const auto ended = joiner.end_stream(tail);
    if (!ended) return std::nullopt;
    samples += ended->decoded_samples;
  }
  FUZZ_CHECK(joiner.joined().decoded_samples == samples);
  return out;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  Bytes in{mediagen::fuzz::as_text(data, size)};
  const std::size_t count = 1 + in.u8() % kMaxStreams;
  std::array<std::size_t, kMaxStreams> lengths{};
  for (std::size_t i = 0; i + 1 < count; ++i) lengths[i] = in.u16();
  std::array<std::string_view, kMaxStreams> streams{};
  std::string_view rest = in.rest;
  for (std::size_t i = 0; i < count; ++i) {
    const std::size_t n = i + 1 < count ? std::min(lengths[i], rest.size()) : rest.size();
    streams[i] = rest.substr(0, n);
    rest.remove_prefix(n);
  }

  std::int64_t frames = 0;
  bool all_scan = true, same_format = true;
  int rate = 0, channels = 0;
  for (std::size_t i = 0; i < count; ++i) {
    const auto scanned = scan_mp3(streams[i]);
    const auto duration = mp3_duration_ms(streams[i]);
    FUZZ_CHECK(scanned.has_value() == duration.has_value());
    if (!scanned) {
      all_scan = false;
      continue;
    }
    FUZZ_CHECK(scanned->frames >= 1 && *duration == scanned->duration_ms);
    FUZZ_CHECK(scanned->decoded_samples == scanned->frames * scanned->samples_per_frame);
    frames += scanned->frames;
    if (i == 0) {
      rate = scanned->sample_rate;
      channels = scanned->channels;
    } else if (scanned->sample_rate != rate || scanned->channels != channels) {
      same_format = false;
    }
  }

  const auto joined = concat_mp3(std::span<const std::string_view>(streams.data(), count));
  // Channel modes may differ within the same channel count (stereo, joint stereo): the join is
  // then refused although the counts agree, so only the other direction is exact.
  if (joined) FUZZ_CHECK(all_scan && same_format);
  if (!all_scan || !same_format) FUZZ_CHECK(!joined);
  FUZZ_CHECK(joined_in_pieces(std::span<const std::string_view>(streams.data(), count), 1 + size % 97) ==
             (joined ? std::optional<std::string>(*joined) : std::nullopt));
  if (!joined) return 0;
  std::string expected;
  for (std::size_t i = 0; i < count; ++i) expected.append(streams[i]);
  FUZZ_CHECK(*joined == expected);
  const auto again = scan_mp3(*joined);
  FUZZ_CHECK(again && again->frames == frames && again->sample_rate == rate && again->channels == channels);
  return 0;
}
