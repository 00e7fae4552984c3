#pragma once
// The espeak-ng voices and variants installed on this machine, for building the voice
// catalogues. A voice is a language voice ("English (America)", identifier "gmw/en-US"); a
// variant changes its timbre ("m3", "f2", "Alicia"). A catalogue voice is a voice plus an
// optional variant: SpeechRequest{.espeak_voice = voice.identifier, .variant = variant.key}.
//
// Both lists are read once through the engine's synthesis thread (libespeak-ng is not
// thread-safe) and then served from memory, so they are safe to call at any time, from any
// thread, also while synthesis runs. They are sorted by identifier, so the order is stable
// across runs. They throw std::runtime_error when libespeak-ng cannot start (no data files).
#include <string>
#include <string_view>
#include <vector>

namespace mediagen::engines {

enum class EspeakGender { unknown, male, female };
std::string_view to_string(EspeakGender gender);  // "unknown", "male", "female"

struct EspeakLanguage {
  std::string tag;  // lower case BCP 47 as espeak-ng writes it: "en-us", "en", "cmn", "pt-br"
  int priority;     // lower = the voice is a better choice for this language
};

struct EspeakVoiceInfo {
  std::string name;        // "English (America)"
  std::string identifier;  // "gmw/en-US": the file under espeak-ng-data/voices; unique and stable
  std::vector<EspeakLanguage> languages;  // in espeak-ng's order; the first is the voice's own
  EspeakGender gender;
  int age;  // 0 = not given
};

struct EspeakVariantInfo {
  std::string name;        // "Alicia", "female2", "Mr_Serious"
  std::string key;         // "Alicia", "f2", "Mr serious": what SpeechRequest::variant takes
  std::string identifier;  // "!v/Alicia"
  EspeakGender gender;
  int age;
};

std::vector<EspeakVoiceInfo> list_espeak_voices();
std::vector<EspeakVariantInfo> list_espeak_variants();

}  // namespace mediagen::engines
