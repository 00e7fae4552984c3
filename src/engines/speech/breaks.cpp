#include "mediagen/engines/speech/breaks.hpp"

#include <algorithm>
#include <cmath>
#include <optional>

namespace mediagen::engines {
namespace {

char lower(char c) { return (c >= 'A' && c <= 'Z') ? static_cast<char>(c - 'A' + 'a') : c; }

// Reads `word` (case-insensitive) at text[at]; advances on success.
bool take(std::string_view text, std::size_t& at, std::string_view word) {
  if (text.size() - at < word.size()) return false;
  for (std::size_t i = 0; i < word.size(); ++i) {
    if (lower(text[at + i]) != word[i]) return false;
  }
  at += word.size();
  return true;
}

std::size_t spaces(std::string_view text, std::size_t& at) {
  const std::size_t from = at;
  while (at < text.size() && (text[at] == ' ' || text[at] == '\t' || text[at] == '\n' || text[at] == '\r')) ++at;
  return at - from;
}

// A decimal number "1", "1.5", ".5"; nullopt without a digit. Long numbers saturate.
std::optional<double> number(std::string_view text, std::size_t& at) {
  double value = 0;
  bool digits = false;
  while (at < text.size() && text[at] >= '0' && text[at] <= '9') {
    value = std::min(value * 10 + (text[at++] - '0'), 1e9);
    digits = true;
  }
  if (at < text.size() && text[at] == '.') {
    ++at;
    double scale = 0.1;
    while (at < text.size() && text[at] >= '0' && text[at] <= '9') {
      value += (text[at++] - '0') * scale;
      scale /= 10;
      digits = true;
    }
  }
  if (!digits) return std::nullopt;
  return value;
}

// The tag starting at text[at] ('<'), or nullopt.
std::optional<BreakTag> tag_at(std::string_view text, std::size_t at) {
  const std::size_t start = at++;
  if (!take(text, at, "break") || spaces(text, at) == 0 || !take(text, at, "time")) return std::nullopt;
  spaces(text, at);
  if (at >= text.size() || text[at] != '=') return std::nullopt;
  ++at;
  spaces(text, at);
  if (at >= text.size() || (text[at] != '"' && text[at] != '\'')) return std::nullopt;
  const char quote = text[at++];
  auto value = number(text, at);
  if (!value) return std::nullopt;
  double ms = 0;
  if (take(text, at, "ms")) {
    ms = *value;
  } else if (take(text, at, "s")) {
    ms = *value * 1000;
  } else {
    return std::nullopt;
  }
  if (at >= text.size() || text[at] != quote) return std::nullopt;
  ++at;
  spaces(text, at);
  if (!take(text, at, "/>")) return std::nullopt;
  const auto clamped = std::clamp<std::int64_t>(std::llround(std::min(ms, 1e9)), 0, kMaxBreakMs);
  return BreakTag{start, at - start, clamped};
}

}  // namespace

std::vector<BreakTag> find_breaks(std::string_view text) {
  std::vector<BreakTag> out;
  for (std::size_t at = text.find('<'); at != std::string_view::npos; at = text.find('<', at + 1)) {
    if (auto tag = tag_at(text, at)) {
      out.push_back(*tag);
      at = tag->offset + tag->length - 1;
    }
  }
  return out;
}

SpokenText without_breaks(std::string_view text, std::span<const WordTiming> words) {
  const auto tags = find_breaks(text);
  SpokenText out;
  std::size_t from = 0;
  for (const auto& t : tags) {
    out.text.append(text.substr(from, t.offset - from));
    from = t.offset + t.length;
  }
  out.text.append(text.substr(std::min(from, text.size())));
  for (const auto& w : words) {
    std::size_t removed = 0;
    bool inside = false;
    for (const auto& t : tags) {
      if (w.text_offset >= t.offset + t.length) {
        removed += t.length;
      } else if (w.text_offset >= t.offset) {
        inside = true;
      }
    }
    if (!inside) out.words.push_back({w.text_offset - removed, w.text_length, w.start_ms});
  }
  return out;
}

boost::system::result<SpeechPcm, EngineFailure> speak_with_breaks(const SpeechRequest& request, const SpeakPiece& speak) {
  const auto tags = find_breaks(request.text);
  if (tags.empty()) return speak(request);
  SpeechPcm joined;
  std::int64_t pause_ms = 0;  // silence owed before the next piece (its rate is known from the first)
  const auto silence = [&joined](std::int64_t ms) {
    joined.samples.insert(joined.samples.end(), static_cast<std::size_t>(ms * joined.sample_rate / 1000), 0);
  };
  const auto piece = [&](std::size_t begin, std::size_t end) -> boost::system::result<void, EngineFailure> {
    const std::string_view text = std::string_view(request.text).substr(begin, end - begin);
    if (text.find_first_not_of(" \t\r\n") == std::string_view::npos) return {};
    SpeechRequest part = request;
    part.text = std::string(text);
    auto pcm = speak(part);
    if (!pcm) return pcm.error();
    if (joined.sample_rate == 0) joined.sample_rate = pcm->sample_rate;
    if (pcm->sample_rate != joined.sample_rate) return EngineFailure::technical("speech pieces of different rates");
    silence(pause_ms);
    pause_ms = 0;
    const auto at_ms = samples_to_ms(static_cast<std::int64_t>(joined.samples.size()), joined.sample_rate);
    for (const auto& w : pcm->words) joined.words.push_back({w.text_offset + begin, w.text_length, w.start_ms + at_ms});
    joined.samples.insert(joined.samples.end(), pcm->samples.begin(), pcm->samples.end());
    joined.words_estimated = joined.words_estimated || pcm->words_estimated;
    return {};
  };
  std::size_t from = 0;
  for (const auto& t : tags) {
    if (auto spoken = piece(from, t.offset); !spoken) return spoken.error();
    pause_ms += t.ms;
    from = t.offset + t.length;
  }
  if (auto spoken = piece(from, request.text.size()); !spoken) return spoken.error();
  if (joined.sample_rate == 0) return EngineFailure::technical("a text of pauses only");
  silence(pause_ms);
  return joined;
}

boost::system::result<SpeechPcm, EngineFailure> speak_with_breaks_if(const SpeechRequest& request, const SpeakPiece& speak) {
  return request.breaks ? speak_with_breaks(request, speak) : speak(request);
}

}  // namespace mediagen::engines
