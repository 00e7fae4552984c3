#include <cstdio>

#include <nlohmann/json.hpp>

#include "mediagen/core/json_text.hpp"
#include "mediagen/engines/audio/char_timings.hpp"
#include "mediagen/engines/speech.hpp"

namespace mediagen::engines {
namespace {

using Write = std::function<bool(std::string_view)>;

std::string number(double seconds) {
  char buffer[32];
  std::snprintf(buffer, sizeof buffer, "%.3f", seconds);
  return buffer;
}

bool is_space(std::string_view c) {
  return c == " " || c == "\t" || c == "\n" || c == "\r" || c == "\xC2\xA0" || c == "\xE3\x80\x80";
}

// Calls `each` with every chunk's characters in turn (joined as char_timings.hpp says).
template <class Each>
bool for_chunks(std::span<const TimedText> chunks, Each each) {
  bool any = false;
  for (const auto& chunk : chunks) {
    CharTimes times;
    align_chunk({chunk.text, chunk.words, chunk.offset_ms, chunk.duration_ms}, any, times);
    any = any || times.size() > 0;
    if (!each(times)) return false;
  }
  return true;
}

// One array of the alignment: `field` of every character, comma-separated across chunks.
template <class Field>
bool write_array(std::span<const TimedText> chunks, const Write& write, Field field) {
  bool first = true;
  if (!write("[")) return false;
  const bool ok = for_chunks(chunks, [&](const CharTimes& t) {
    std::string out;
    for (std::size_t i = 0; i < t.size(); ++i) {
      if (!first) out += ',';
      first = false;
      out += field(t, i);
    }
    return out.empty() || write(out);
  });
  return ok && write("]");
}

bool write_words(std::span<const TimedText> chunks, const Write& write) {
  bool first = true;
  if (!write("[")) return false;
  const bool ok = for_chunks(chunks, [&](const CharTimes& t) {
    std::string out;
    for (std::size_t i = 0; i < t.size();) {
      if (is_space(t.characters[i])) {
        ++i;
        continue;
      }
      std::string text;
      const double start = t.starts[i];
      double end = t.ends[i];
      for (; i < t.size() && !is_space(t.characters[i]); ++i) {
        text += t.characters[i];
        end = t.ends[i];
      }
      if (!first) out += ',';
      first = false;
      out += to_json_text(nlohmann::ordered_json{{"text", text}});
      out.pop_back();
      out += ",\"start\":" + number(start) + ",\"end\":" + number(end) + "}";
    }
    return out.empty() || write(out);
  });
  return ok && write("]");
}

}  // namespace

bool write_timings_json(std::span<const TimedText> chunks, const Write& write) {
  bool estimated = false;
  for (const auto& c : chunks) estimated = estimated || c.estimated;
  if (!write("{\"alignment\":{\"characters\":")) return false;
  if (!write_array(chunks, write, [](const CharTimes& t, std::size_t i) { return to_json_text(nlohmann::json(t.characters[i])); })) {
    return false;
  }
  if (!write(",\"character_start_times_seconds\":")) return false;
  if (!write_array(chunks, write, [](const CharTimes& t, std::size_t i) { return number(t.starts[i]); })) return false;
  if (!write(",\"character_end_times_seconds\":")) return false;
  if (!write_array(chunks, write, [](const CharTimes& t, std::size_t i) { return number(t.ends[i]); })) return false;
  if (!write("},\"words\":") || !write_words(chunks, write)) return false;
  return write(estimated ? ",\"estimated\":true}" : "}");
}

}  // namespace mediagen::engines
