#include "mediagen/engines/audio/output_format.hpp"

#include <array>

namespace mediagen::engines {
namespace {

struct Named {
  std::string_view name;
  OutputFormat format;
};

constexpr std::array kFormats{
    Named{"mp3_22050_32", {OutputCodec::mp3, 22050, 32}},   Named{"mp3_44100_64", {OutputCodec::mp3, 44100, 64}},
    Named{"mp3_44100_96", {OutputCodec::mp3, 44100, 96}},   Named{"mp3_44100_128", {OutputCodec::mp3, 44100, 128}},
    Named{"mp3_44100_192", {OutputCodec::mp3, 44100, 192}}, Named{"pcm_16000", {OutputCodec::pcm, 16000, 0}},
    Named{"pcm_22050", {OutputCodec::pcm, 22050, 0}},       Named{"pcm_24000", {OutputCodec::pcm, 24000, 0}},
    Named{"pcm_44100", {OutputCodec::pcm, 44100, 0}},       Named{"ulaw_8000", {OutputCodec::ulaw, 8000, 0}},
    Named{"opus_48000_64", {OutputCodec::opus, 48000, 64}},
};

constexpr std::array<std::string_view, kFormats.size()> names() {
  std::array<std::string_view, kFormats.size()> out{};
  for (std::size_t i = 0; i < kFormats.size(); ++i) out[i] = kFormats[i].name;
  return out;
}
constexpr auto kNames = names();

}  // namespace

std::string OutputFormat::name() const {
  for (const auto& f : kFormats) {
    if (f.format == *this) return std::string(f.name);
  }
  return "mp3_44100_128";
}

std::optional<OutputFormat> parse_output_format(std::string_view name) {
  for (const auto& f : kFormats) {
    if (f.name == name) return f.format;
  }
  return std::nullopt;
}

std::span<const std::string_view> output_format_names() { return kNames; }

std::string_view output_content_type(const OutputFormat& format) {
  switch (format.codec) {
    case OutputCodec::mp3: return "audio/mpeg";
    case OutputCodec::pcm: return "audio/pcm";
    case OutputCodec::ulaw: return "audio/basic";
    case OutputCodec::opus: return "audio/ogg";
  }
  return "application/octet-stream";
}

std::string_view output_extension(const OutputFormat& format) {
  switch (format.codec) {
    case OutputCodec::mp3: return "mp3";
    case OutputCodec::pcm: return "pcm";
    case OutputCodec::ulaw: return "ulaw";
    case OutputCodec::opus: return "ogg";
  }
  return "bin";
}

}  // namespace mediagen::engines
