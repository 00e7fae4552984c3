#include "media_type.hpp"

#include <string>

#include "mediagen/core/ascii.hpp"

namespace mediagen::storage {
namespace {

struct Entry {
  std::string_view extension;
  std::string_view type;
};

constexpr Entry kTypes[] = {
    {"mp3", "audio/mpeg"},
    {"wav", "audio/wav"},
    {"ogg", "audio/ogg"},
    {"flac", "audio/flac"},
    {"m4a", "audio/mp4"},
    {"pcm", "audio/pcm"},    // raw 16-bit little-endian mono (an order's output_format pcm_*)
    {"ulaw", "audio/basic"},  // raw G.711 mu-law, 8 kHz mono
    {"srt", "application/x-subrip; charset=utf-8"},
    {"vtt", "text/vtt; charset=utf-8"},
    {"txt", "text/plain; charset=utf-8"},
    {"json", "application/json; charset=utf-8"},
};

}  // namespace

std::string_view media_type_for(std::string_view key) {
  const std::size_t dot = key.rfind('.');
  const std::size_t slash = key.rfind('/');
  if (dot == std::string_view::npos || (slash != std::string_view::npos && dot < slash)) {
    return "application/octet-stream";
  }
  const std::string extension = ascii_lower(key.substr(dot + 1));
  for (const auto& e : kTypes) {
    if (e.extension == extension) return e.type;
  }
  return "application/octet-stream";
}

}  // namespace mediagen::storage
