#include "mediagen/engines/upstream.hpp"

#include <algorithm>
#include <cmath>

#include <nlohmann/json.hpp>

#include "mediagen/core/crypto.hpp"
#include "mediagen/core/utf8.hpp"

namespace mediagen::engines {
namespace {

using nlohmann::json;

constexpr std::size_t kMaxVoices = 1000;

bool is_space(char32_t c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == 0xA0 || c == 0x3000; }

std::string string_field(const json& object, const char* key) {
  if (!object.is_object()) return {};
  const auto it = object.find(key);
  return it != object.end() && it->is_string() ? it->get<std::string>() : std::string();
}

// Byte spans of the words (runs of non-space code points) of text; stray bytes count as letters.
struct Span {
  std::size_t offset;
  std::size_t length;
  std::size_t code_points;
};
std::vector<Span> word_spans(std::string_view text) {
  std::vector<Span> out;
  std::size_t i = 0;
  while (i < text.size()) {
    const auto cp = decode_utf8(text.substr(i));
    const std::size_t len = cp ? cp->length : 1;
    const bool space = cp && is_space(cp->value);
    if (!space) {
      if (out.empty() || out.back().offset + out.back().length != i) out.push_back({i, 0, 0});
      out.back().length += len;
      ++out.back().code_points;
    }
    i += len;
  }
  return out;
}

std::string lowered(std::string_view text) {
  std::string out(text);
  for (char& c : out) {
    if (c >= 'A' && c <= 'Z') c = static_cast<char>(c - 'A' + 'a');
  }
  return out;
}

std::string language_of(const json& labels) {
  std::string lang = lowered(string_field(labels, "language"));
  if (lang.size() >= 2 && lang[0] >= 'a' && lang[0] <= 'z' && lang[1] >= 'a' && lang[1] <= 'z' &&
      (lang.size() == 2 || lang[2] == '-' || lang[2] == '_')) {
    return lang.substr(0, 2);
  }
  return {};
}

std::string gender_of(const json& labels) {
  const std::string g = lowered(string_field(labels, "gender"));
  return g == "male" || g == "female" ? g : std::string();
}

bool usable_id(const std::string& id) {
  if (id.empty() || id.size() > 256 || !is_valid_utf8(id)) return false;
  return std::none_of(id.begin(), id.end(), [](char c) { return static_cast<unsigned char>(c) < 0x20; });
}

void add_voice(std::vector<UpstreamVoice>& out, UpstreamVoice v) {
  if (out.size() >= kMaxVoices || !usable_id(v.id)) return;
  if (v.name.empty() || !is_valid_utf8(v.name)) v.name = v.id;
  v.name = std::string(utf8_prefix(v.name, 120));
  out.push_back(std::move(v));
}

}  // namespace

std::optional<TimedSpeech> parse_timed_speech(std::string_view text) {
  const auto doc = json::parse(text, nullptr, false);
  if (!doc.is_object()) return std::nullopt;
  auto audio = crypto::base64_decode(string_field(doc, "audio_base64"));
  if (!audio || audio->empty()) return std::nullopt;
  TimedSpeech out;
  out.audio = std::move(*audio);
  const auto alignment = doc.find("alignment");
  if (alignment == doc.end() || !alignment->is_object()) return out;
  const auto chars = alignment->find("characters");
  const auto starts = alignment->find("character_start_times_seconds");
  if (chars == alignment->end() || starts == alignment->end() || !chars->is_array() || !starts->is_array() ||
      chars->size() != starts->size()) {
    return out;
  }
  for (std::size_t i = 0; i < chars->size(); ++i) {
    const auto& c = (*chars)[i];
    const auto& s = (*starts)[i];
    if (!c.is_string() || !s.is_number() || !std::isfinite(s.get<double>())) {
      out.characters.clear();
      out.starts_seconds.clear();
      return out;
    }
    out.characters.push_back(c.get<std::string>());
    out.starts_seconds.push_back(s.get<double>());
  }
  return out;
}

std::optional<std::vector<WordTiming>> words_from_alignment(std::string_view text,
                                                            const std::vector<std::string>& characters,
                                                            const std::vector<double>& starts_seconds) {
  if (characters.empty() || characters.size() != starts_seconds.size()) return std::nullopt;
  std::vector<WordTiming> out;
  std::size_t pos = 0;  // byte position in text
  bool in_word = false;
  std::int64_t last_ms = 0;
  for (std::size_t i = 0; i < characters.size(); ++i) {
    const std::string& ch = characters[i];
    if (ch.empty() || text.substr(pos, ch.size()) != ch) return std::nullopt;
    const auto cp = decode_utf8(ch);
    const bool space = cp && is_space(cp->value);
    const double s = std::clamp(starts_seconds[i], 0.0, 86400.0);
    const std::int64_t ms = std::max(last_ms, static_cast<std::int64_t>(std::llround(s * 1000.0)));
    if (!space && !in_word) {
      out.push_back({pos, 0, ms});
      last_ms = ms;
    }
    if (!space) out.back().text_length = pos + ch.size() - out.back().text_offset;
    in_word = !space;
    pos += ch.size();
  }
  if (pos != text.size()) return std::nullopt;
  return out;
}

std::vector<WordTiming> estimate_words(std::string_view text, std::int64_t duration_ms) {
  const auto spans = word_spans(text);
  std::size_t total = 0;
  for (const auto& s : spans) total += s.code_points + 1;
  std::vector<WordTiming> out;
  if (total == 0 || duration_ms <= 0) return out;
  std::size_t before = 0;
  for (const auto& s : spans) {
    const auto start = static_cast<std::int64_t>(static_cast<double>(before) / static_cast<double>(total) *
                                                 static_cast<double>(duration_ms));
    out.push_back({s.offset, s.length, start});
    before += s.code_points + 1;
  }
  return out;
}

std::vector<UpstreamVoice> parse_openai_voices(std::string_view text) {
  const auto doc = json::parse(text, nullptr, false);
  const json* list = &doc;
  if (doc.is_object()) {
    if (const auto it = doc.find("voices"); it != doc.end()) list = &*it;
    else if (const auto d = doc.find("data"); d != doc.end()) list = &*d;
  }
  std::vector<UpstreamVoice> out;
  if (!list->is_array()) return out;
  for (const auto& v : *list) {
    if (v.is_string()) {
      add_voice(out, {v.get<std::string>(), v.get<std::string>(), {}, {}});
      continue;
    }
    std::string id = string_field(v, "id");
    if (id.empty()) id = string_field(v, "voice_id");
    if (id.empty()) id = string_field(v, "name");
    add_voice(out, {id, string_field(v, "name"), language_of(v), gender_of(v)});
  }
  return out;
}

std::vector<UpstreamVoice> parse_elevenlabs_voices(std::string_view text) {
  const auto doc = json::parse(text, nullptr, false);
  std::vector<UpstreamVoice> out;
  if (!doc.is_object()) return out;
  const auto list = doc.find("voices");
  if (list == doc.end() || !list->is_array()) return out;
  for (const auto& v : *list) {
    const json labels = v.is_object() && v.contains("labels") ? v["labels"] : json();
    add_voice(out, {string_field(v, "voice_id"), string_field(v, "name"), language_of(labels), gender_of(labels)});
  }
  return out;
}

std::string error_summary(std::string_view body) {
  const auto doc = json::parse(body, nullptr, false);
  std::string message;
  if (doc.is_object()) {
    const auto error = doc.find("error");
    const auto detail = doc.find("detail");
    if (error != doc.end() && error->is_object()) message = string_field(*error, "message");
    else if (error != doc.end() && error->is_string()) message = error->get<std::string>();
    else if (detail != doc.end() && detail->is_object()) message = string_field(*detail, "message");
    else if (detail != doc.end() && detail->is_string()) message = detail->get<std::string>();
  }
  if (message.empty()) message = std::string(body.substr(0, 200));
  std::string clean;
  for (const char c : message) clean += static_cast<unsigned char>(c) < 0x20 ? ' ' : c;
  if (!is_valid_utf8(clean)) return "(an error body that is not UTF-8)";
  return std::string(utf8_prefix(clean, 200));
}

bool is_content_refusal(std::string_view body) {
  const auto doc = json::parse(body, nullptr, false);
  std::string words;
  if (doc.is_object()) {
    for (const char* key : {"error", "detail"}) {
      const auto it = doc.find(key);
      if (it == doc.end()) continue;
      if (it->is_string()) words += ' ' + it->get<std::string>();
      for (const char* field : {"code", "type", "status", "message"}) words += ' ' + string_field(*it, field);
    }
  }
  words = lowered(words);
  for (std::string_view term : {"policy", "moderation", "safety", "flagged", "content_refus", "content refus"}) {
    if (words.find(term) != std::string::npos) return true;
  }
  return false;
}

}  // namespace mediagen::engines
