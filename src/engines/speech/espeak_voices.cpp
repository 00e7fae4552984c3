#include "mediagen/engines/speech.hpp"

#include <algorithm>
#include <stdexcept>

#include "espeak_runtime.hpp"
#include "speech_voice.hpp"
#include "mediagen/core/ascii.hpp"

namespace mediagen::engines {

std::string_view to_string(EspeakGender gender) {
  switch (gender) {
    case EspeakGender::male: return "male";
    case EspeakGender::female: return "female";
    case EspeakGender::unknown: break;
  }
  return "unknown";
}

namespace {

const detail::EspeakRuntime& started_runtime() {
  const auto& runtime = detail::EspeakRuntime::instance();
  if (!runtime.start_error().empty()) throw std::runtime_error(runtime.start_error());
  return runtime;
}

}  // namespace

std::vector<EspeakVoiceInfo> list_espeak_voices() { return started_runtime().voices(); }

std::vector<EspeakVariantInfo> list_espeak_variants() { return started_runtime().variants(); }

namespace detail {
namespace {

std::string normalise_tag(std::string_view tag) {
  std::string out = ascii_lower(tag);
  std::replace(out.begin(), out.end(), '_', '-');
  return out;
}

std::string_view file_name(std::string_view identifier) {
  const auto slash = identifier.rfind('/');
  return slash == std::string_view::npos ? identifier : identifier.substr(slash + 1);
}

// The voice espeak-ng prefers for a language tag: an exact tag first, else a more specific tag
// of the same language ("pt" -> "pt-br"); lowest priority wins, ties by identifier order.
const EspeakVoiceInfo* best_for_language(const std::vector<EspeakVoiceInfo>& voices, const std::string& tag) {
  const EspeakVoiceInfo* best = nullptr;
  int best_rank = 0;
  for (const auto& v : voices) {
    for (const auto& l : v.languages) {
      int rank = 0;
      if (l.tag == tag) {
        rank = l.priority;
      } else if (l.tag.size() > tag.size() && l.tag.compare(0, tag.size(), tag) == 0 && l.tag[tag.size()] == '-') {
        rank = 1000 + l.priority;
      } else {
        continue;
      }
      if (best == nullptr || rank < best_rank) best = &v, best_rank = rank;
    }
  }
  return best;
}

// Whether the voice speaks the language: one of its tags is the code or a more specific form
// of it ("en" asked, voice "en-us"). A voice for "en" does not count for "en-us".
bool speaks(const EspeakVoiceInfo& voice, const std::string& code) {
  for (const auto& l : voice.languages) {
    if (l.tag == code) return true;
    if (l.tag.size() > code.size() && l.tag.compare(0, code.size(), code) == 0 && l.tag[code.size()] == '-') return true;
  }
  return false;
}

}  // namespace

boost::system::result<std::string, EngineFailure> resolve_voice(const std::vector<EspeakVoiceInfo>& voices,
                                                                const std::vector<EspeakVariantInfo>& variants,
                                                                std::string_view espeak_voice,
                                                                std::string_view variant,
                                                                std::string_view language_code) {
  const std::string wanted = ascii_lower(espeak_voice);
  const std::string code = normalise_tag(language_code);

  const EspeakVoiceInfo* voice = nullptr;
  if (!wanted.empty()) {
    for (auto it = voices.begin(); voice == nullptr && it != voices.end(); ++it) {
      if (ascii_lower(it->identifier) == wanted) voice = &*it;
    }
    for (auto it = voices.begin(); voice == nullptr && it != voices.end(); ++it) {
      if (ascii_lower(file_name(it->identifier)) == wanted) voice = &*it;
    }
    for (auto it = voices.begin(); voice == nullptr && it != voices.end(); ++it) {
      if (ascii_lower(it->name) == wanted) voice = &*it;
    }
    if (voice == nullptr) voice = best_for_language(voices, normalise_tag(wanted));
    if (voice == nullptr) return EngineFailure::technical("unknown espeak-ng voice '" + std::string(espeak_voice) + "'");
  }
  if (!code.empty() && (voice == nullptr || !speaks(*voice, code))) {
    voice = best_for_language(voices, code);
    if (voice == nullptr) {
      return EngineFailure::technical("no espeak-ng voice speaks language_code '" + std::string(language_code) + "'");
    }
  }
  if (voice == nullptr) return EngineFailure::technical("no espeak-ng voice given");

  std::string name = voice->identifier;
  if (!variant.empty()) {
    const std::string wanted_variant = ascii_lower(variant);
    const EspeakVariantInfo* found = nullptr;
    for (const auto& v : variants) {
      if (v.key == variant) {
        found = &v;
        break;
      }
      if (found == nullptr && ascii_lower(v.key) == wanted_variant) found = &v;
    }
    if (found == nullptr) return EngineFailure::technical("unknown espeak-ng variant '" + std::string(variant) + "'");
    name += '+';
    name += found->key;
  }
  return name;
}

}  // namespace detail
}  // namespace mediagen::engines
