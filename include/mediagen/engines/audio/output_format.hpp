#pragma once
// The output formats a caller may ask for, by ElevenLabs' names (codec_rate[_bitrate]):
//   mp3_22050_32, mp3_44100_64, mp3_44100_96, mp3_44100_128, mp3_44100_192
//   pcm_16000, pcm_22050, pcm_24000, pcm_44100     raw signed 16-bit little-endian mono
//   ulaw_8000                                      raw G.711 mu-law mono
//   opus_48000_64                                  Ogg Opus mono
// Pure: no I/O.
#include <optional>
#include <span>
#include <string>
#include <string_view>

namespace mediagen::engines {

enum class OutputCodec { mp3, pcm, ulaw, opus };

struct OutputFormat {
  OutputCodec codec = OutputCodec::mp3;
  int sample_rate = 44100;
  int bitrate_kbps = 128;  // mp3 and opus; 0 for the raw codecs

  std::string name() const;  // "mp3_44100_128"
  bool operator==(const OutputFormat&) const = default;
};

// One of the names above exactly (case matters, as ElevenLabs' API reads them); nullopt otherwise.
std::optional<OutputFormat> parse_output_format(std::string_view name);

// Every name, in the order above (error messages, documentation).
std::span<const std::string_view> output_format_names();

// The Content-Type of audio in the format: audio/mpeg, audio/pcm, audio/basic, audio/ogg.
std::string_view output_content_type(const OutputFormat& format);

// The file name extension of a whole file in the format: mp3, pcm, ulaw, ogg.
std::string_view output_extension(const OutputFormat& format);

}  // namespace mediagen::engines
