// SRT and WebVTT rendering of subtitle_cues (subtitle_cues.cpp).
#include "mediagen/engines/speech.hpp"

#include <cstdio>

namespace mediagen::engines {
namespace {

// HH:MM:SS<separator>mmm; hours grow past two digits rather than wrap.
std::string timestamp(std::int64_t ms, char separator) {
  char buffer[32];
  std::snprintf(buffer, sizeof buffer, "%02lld:%02lld:%02lld%c%03lld", static_cast<long long>(ms / 3'600'000),
                static_cast<long long>(ms / 60'000 % 60), static_cast<long long>(ms / 1000 % 60), separator,
                static_cast<long long>(ms % 1000));
  return buffer;
}

// In WebVTT cue text '&' and '<' start markup and "-->" would end the cue's timing line.
std::string vtt_escaped(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  for (const char c : text) {
    switch (c) {
      case '&': out += "&amp;"; break;
      case '<': out += "&lt;"; break;
      case '>': out += "&gt;"; break;
      default: out += c;
    }
  }
  return out;
}

}  // namespace

std::string render_srt(std::span<const TimedText> chunks) {
  std::string out;
  std::size_t number = 0;
  for (const auto& cue : subtitle_cues(chunks)) {
    out += std::to_string(++number);
    out += '\n';
    out += timestamp(cue.start_ms, ',') + " --> " + timestamp(cue.end_ms, ',');
    out += '\n';
    out += cue.text;
    out += "\n\n";
  }
  return out;
}

std::string render_webvtt(std::span<const TimedText> chunks) {
  std::string out = "WEBVTT\n\n";
  for (const auto& chunk : chunks) {
    if (!chunk.estimated) continue;
    out += "NOTE word timings: estimated\n\n";
    break;
  }
  for (const auto& cue : subtitle_cues(chunks)) {
    out += timestamp(cue.start_ms, '.') + " --> " + timestamp(cue.end_ms, '.');
    out += '\n';
    out += vtt_escaped(cue.text);
    out += "\n\n";
  }
  return out;
}

}  // namespace mediagen::engines
