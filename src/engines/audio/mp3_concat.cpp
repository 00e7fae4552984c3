#include "mediagen/engines/audio.hpp"

#include <array>
#include <optional>
#include <utility>

namespace mediagen::engines {
namespace {

enum class MpegVersion { mpeg1, mpeg2, mpeg25 };

// The fields of a Layer III frame header that decide the frame's length and how it joins.
struct FrameHeader {
  MpegVersion version;
  int bitrate_kbps;
  int sample_rate;
  bool padding;
  bool crc;
  int channel_mode;  // 0 stereo, 1 joint stereo, 2 dual channel, 3 mono

  int samples_per_frame() const { return version == MpegVersion::mpeg1 ? 1152 : 576; }
  int channels() const { return channel_mode == 3 ? 1 : 2; }
  std::size_t length() const {
    // Layer III: 144 * bitrate / rate bytes for MPEG-1, half of that for MPEG-2/2.5 (half the
    // samples per frame), plus one padding byte.
    const int coefficient = version == MpegVersion::mpeg1 ? 144 : 72;
    return static_cast<std::size_t>(coefficient * bitrate_kbps * 1000 / sample_rate + (padding ? 1 : 0));
  }
  // Where a Xing/Info tag would start: after the header, the CRC and the side information.
  std::size_t tag_offset() const {
    const bool mono = channel_mode == 3;
    const std::size_t side = version == MpegVersion::mpeg1 ? (mono ? 17 : 32) : (mono ? 9 : 17);
    return 4 + (crc ? 2 : 0) + side;
  }
};

constexpr std::array<int, 15> kBitratesMpeg1{0, 32, 40, 48, 56, 64, 80, 96, 112, 128, 160, 192, 224, 256, 320};
constexpr std::array<int, 15> kBitratesMpeg2{0, 8, 16, 24, 32, 40, 48, 56, 64, 80, 96, 112, 128, 144, 160};
constexpr std::array<int, 3> kRatesMpeg1{44100, 48000, 32000};
constexpr std::array<int, 3> kRatesMpeg2{22050, 24000, 16000};
constexpr std::array<int, 3> kRatesMpeg25{11025, 12000, 8000};

// nullopt when the 4 bytes are not a usable Layer III header: no sync, a reserved version,
// another layer, free-format or invalid bitrate, reserved sample rate or emphasis.
std::optional<FrameHeader> parse_header(std::string_view at) {
  if (at.size() < 4) return std::nullopt;
  const auto b = [&](std::size_t i) { return static_cast<unsigned>(static_cast<unsigned char>(at[i])); };
  if (b(0) != 0xFF || (b(1) & 0xE0) != 0xE0) return std::nullopt;
  const unsigned version_bits = (b(1) >> 3) & 0x3;
  const unsigned layer_bits = (b(1) >> 1) & 0x3;
  const unsigned bitrate_index = (b(2) >> 4) & 0xF;
  const unsigned rate_index = (b(2) >> 2) & 0x3;
  if (version_bits == 1 || layer_bits != 1) return std::nullopt;
  // Free format (0) has no length in the header; 15 is forbidden.
  if (bitrate_index == 0 || bitrate_index == 15 || rate_index == 3) return std::nullopt;
  if ((b(3) & 0x3) == 2) return std::nullopt;  // reserved emphasis

  FrameHeader h{};
  h.version = version_bits == 3 ? MpegVersion::mpeg1 : version_bits == 2 ? MpegVersion::mpeg2 : MpegVersion::mpeg25;
  h.bitrate_kbps = (h.version == MpegVersion::mpeg1 ? kBitratesMpeg1 : kBitratesMpeg2)[bitrate_index];
  const auto& rates = h.version == MpegVersion::mpeg1   ? kRatesMpeg1
                      : h.version == MpegVersion::mpeg2 ? kRatesMpeg2
                                                        : kRatesMpeg25;
  h.sample_rate = rates[rate_index];
  h.padding = ((b(2) >> 1) & 0x1) != 0;
  h.crc = (b(1) & 0x1) == 0;  // the protection bit is 0 when a CRC follows
  h.channel_mode = static_cast<int>((b(3) >> 6) & 0x3);
  return h;
}

bool carries_tag(std::string_view frame, const FrameHeader& h) {
  const auto at = h.tag_offset();
  const auto tag = frame.size() >= at + 4 ? frame.substr(at, 4) : std::string_view{};
  // VBRI (Fraunhofer) sits at a fixed 32 bytes after the header.
  const auto vbri = frame.size() >= 36 + 4 ? frame.substr(36, 4) : std::string_view{};
  return tag == "Xing" || tag == "Info" || vbri == "VBRI";
}

std::string position(std::size_t offset) { return " at byte " + std::to_string(offset); }

}  // namespace

boost::system::result<std::size_t, EngineFailure> Mp3Joiner::take(std::string_view bytes) {
  std::size_t at = 0;
  while (bytes.size() - at >= 4) {
    const auto h = parse_header(bytes.substr(at));
    if (!h) return EngineFailure::technical("mp3: no MPEG Layer III frame header" + position(offset_ + at));
    const auto length = h->length();
    if (length > bytes.size() - at) break;  // the frame ends in a later piece
    const StreamFormat format{h->sample_rate, h->channel_mode};
    if (stream_.frames == 0) {
      if (carries_tag(bytes.substr(at, length), *h)) return EngineFailure::technical("mp3: stream starts with a tag frame");
      if (streams_ > 0 && format != format_) {
        return EngineFailure::technical("sample rate or channel mode differs from stream 1");
      }
      format_ = format;
      stream_.sample_rate = h->sample_rate;
      stream_.samples_per_frame = h->samples_per_frame();
      stream_.channels = h->channels();
    } else if (format != format_) {
      return EngineFailure::technical("mp3: sample rate or channel mode changes" + position(offset_ + at));
    }
    ++stream_.frames;
    at += length;
  }
  offset_ += at;
  return at;
}

boost::system::result<Mp3Frames, EngineFailure> Mp3Joiner::end_stream(std::string_view tail) {
  if (offset_ == 0 && tail.empty()) return EngineFailure::technical("mp3: empty stream");
  if (!tail.empty()) {
    const auto h = parse_header(tail);
    if (!h) return EngineFailure::technical("mp3: no MPEG Layer III frame header" + position(offset_));
    return EngineFailure::technical("mp3: last frame cut short" + position(offset_) + " (" +
                                    std::to_string(h->length()) + " bytes, " + std::to_string(tail.size()) + " left)");
  }
  Mp3Frames done = stream_;
  done.decoded_samples = done.frames * done.samples_per_frame;
  done.duration_ms = samples_to_ms(done.decoded_samples, done.sample_rate);
  if (streams_ == 0) {
    joined_ = done;
  } else {
    joined_.frames += done.frames;
    joined_.decoded_samples += done.decoded_samples;
    joined_.duration_ms = samples_to_ms(joined_.decoded_samples, joined_.sample_rate);
  }
  ++streams_;
  stream_ = {};
  offset_ = 0;
  return done;
}

boost::system::result<Mp3Frames, EngineFailure> scan_mp3(std::string_view stream) {
  Mp3Joiner joiner;
  auto taken = joiner.take(stream);
  if (!taken) return taken.error();
  return joiner.end_stream(stream.substr(*taken));
}

boost::system::result<std::int64_t, EngineFailure> mp3_duration_ms(std::string_view stream) {
  auto frames = scan_mp3(stream);
  if (!frames) return frames.error();
  return frames->duration_ms;
}

boost::system::result<std::string, EngineFailure> concat_mp3(std::span<const std::string_view> streams) {
  if (streams.empty()) return EngineFailure::technical("mp3: no streams to join");
  Mp3Joiner joiner;
  std::size_t total = 0;
  for (std::size_t i = 0; i < streams.size(); ++i) {
    const auto refused = [&](const EngineFailure& f) {
      return EngineFailure::technical("stream " + std::to_string(i + 1) + ": " + f.detail);
    };
    auto taken = joiner.take(streams[i]);
    if (!taken) return refused(taken.error());
    auto ended = joiner.end_stream(streams[i].substr(*taken));
    if (!ended) return refused(ended.error());
    total += streams[i].size();
  }
  std::string out;
  out.reserve(total);
  for (const auto s : streams) out.append(s);
  return out;
}

}  // namespace mediagen::engines
