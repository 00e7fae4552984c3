#include "mediagen/voices/catalogue_builder.hpp"

#include <algorithm>
#include <set>
#include <tuple>

#include "mediagen/core/crypto.hpp"
#include "mediagen/core/ascii.hpp"

namespace mediagen::voices {
namespace {

enum class Kind { everyday, whisper, robotic, character, excluded };

bool contains(std::string_view haystack, std::string_view needle) {
  return haystack.find(needle) != std::string_view::npos;
}

Kind classify(const SourceVariant& v) {
  const std::string key = ascii_lower(v.key);
  const std::string name = ascii_lower(v.name);
  if (key == "fast" || name.starts_with("fast_test")) return Kind::excluded;  // a test voice of espeak-ng
  if (key.starts_with("robosoft") || key.starts_with("klatt") || contains(name, "robot")) return Kind::robotic;
  if (key == "demonic" || key == "tweaky" || key == "croak" || key == "announcer" || contains(name, "announcement")) {
    return Kind::character;
  }
  if (contains(key, "whisper") || contains(name, "whisper")) return Kind::whisper;
  return Kind::everyday;
}

std::string gender_of(const SourceVariant* variant, const SourceVoice& voice) {
  if (variant && (variant->gender == "male" || variant->gender == "female")) return variant->gender;
  if (voice.gender == "male" || voice.gender == "female") return voice.gender;
  return "neutral";
}

std::vector<std::string> tags_of(const SourceVariant& v, const std::string& gender, bool multilingual) {
  std::vector<std::string> tags;
  if (gender != "neutral") tags.push_back(gender);
  const std::string name = ascii_lower(v.name);
  if (v.age >= 60 || contains(name, "grand")) tags.emplace_back("old");
  else if (v.age > 0 && v.age <= 30) tags.emplace_back("young");
  else if (v.age > 30) tags.emplace_back("middle_aged");
  switch (classify(v)) {
    case Kind::whisper: tags.emplace_back("whisper"); break;
    case Kind::robotic: tags.emplace_back("robotic"); break;
    case Kind::character: tags.emplace_back("character"); break;
    default: {
      // A stable style and tone per variant, the same in every language and service.
      const auto h = crypto::sha256("tags|" + v.key);
      static constexpr std::string_view kStyles[] = {"narration", "conversational", "news", "storytelling"};
      tags.emplace_back(kStyles[h[0] % 4]);
      std::string_view tone;
      switch (h[1] % 4) {
        case 0: tone = "calm"; break;
        case 1: tone = "warm"; break;
        case 2: tone = "energetic"; break;
        default: tone = gender == "female" ? "bright" : "deep"; break;
      }
      tags.emplace_back(tone);
    }
  }
  if (multilingual) tags.emplace_back("multilingual");
  return tags;
}

// n entries of `list` from `start` on, wrapping around (fewer when the list is shorter).
std::vector<const SourceVariant*> pick(const std::vector<const SourceVariant*>& list, std::size_t start,
                                       std::size_t n) {
  std::vector<const SourceVariant*> out;
  if (list.empty()) return out;
  for (std::size_t k = 0; k < std::min(n, list.size()); ++k) out.push_back(list[(start + k) % list.size()]);
  return out;
}

struct Pools {
  std::vector<const SourceVariant*> female, male, everyday, novelty;
};

Pools pools_of(const std::vector<SourceVariant>& variants) {
  Pools p;
  for (const auto& v : variants) {
    switch (classify(v)) {
      case Kind::excluded: break;
      case Kind::robotic:
      case Kind::character: p.novelty.push_back(&v); break;
      default:
        p.everyday.push_back(&v);
        if (v.gender == "female") p.female.push_back(&v);
        else if (v.gender == "male") p.male.push_back(&v);
    }
  }
  return p;
}

bool in(const std::vector<std::string_view>& list, std::string_view value) {
  return std::find(list.begin(), list.end(), value) != list.end();
}

// Languages of the services with a chosen subset (voice language tags).
const std::vector<std::string_view> kProviderB{"en-us", "en-gb", "de", "fr-fr", "es", "es-419", "it", "pt", "pt-br",
                                               "ru", "pl", "nl", "sv", "tr", "uk", "ja", "ko", "hi"};
const std::vector<std::string_view> kProviderC{"en-us", "en-gb", "de", "fr-fr", "es", "it",
                                               "pt-br", "ru", "pl", "uk", "ja"};
const std::vector<std::string_view> kProviderDLanguages{"en-us", "ru", "uk", "be", "bg", "kk", "sr", "de", "fr-fr", "es"};

class Builder {
 public:
  void add(std::string_view service, std::string voice_id, const SourceVoice& voice, const SourceVariant& variant,
           bool multilingual) {
    if (!ids_.insert(std::string(service) + "|" + voice_id).second) return;  // ids are unique per service
    VoiceSeed s;
    s.service = std::string(service);
    s.voice_id = std::move(voice_id);
    s.id = lumvoice_id(s.service, s.voice_id);
    s.name = display_name(variant.name);
    s.language = primary_language(voice.language);
    s.locale = voice.language;
    s.accent = voice.name;
    s.gender = gender_of(&variant, voice);
    s.tags = tags_of(variant, s.gender, multilingual);
    s.espeak_voice = voice.identifier;
    s.espeak_variant = variant.key;
    s.preview_path = "voices/" + s.service + "/" + s.voice_id + ".mp3";
    const Kind kind = classify(variant);
    s.is_public = kind != Kind::robotic && kind != Kind::character;
    out_.push_back(std::move(s));
  }
  bool taken(std::string_view service, const std::string& voice_id) const {
    return ids_.contains(std::string(service) + "|" + voice_id);
  }
  std::vector<VoiceSeed> take() {
    std::sort(out_.begin(), out_.end(), [](const VoiceSeed& a, const VoiceSeed& b) {
      return std::tie(a.service, a.voice_id) < std::tie(b.service, b.voice_id);
    });
    return std::move(out_);
  }

 private:
  std::set<std::string> ids_;
  std::vector<VoiceSeed> out_;
};

std::string seed_of(std::string_view service, const SourceVoice& voice, const SourceVariant& variant) {
  return std::string(service) + "|" + voice.identifier + "|" + variant.key;
}

}  // namespace

std::vector<VoiceSeed> build_catalogue(std::vector<SourceVoice> voices, std::vector<SourceVariant> variants) {
  std::sort(voices.begin(), voices.end(), [](const auto& a, const auto& b) { return a.identifier < b.identifier; });
  voices.erase(std::unique(voices.begin(), voices.end(),
                           [](const auto& a, const auto& b) { return a.identifier == b.identifier; }),
               voices.end());
  std::sort(variants.begin(), variants.end(), [](const auto& a, const auto& b) { return a.key < b.key; });
  variants.erase(
      std::unique(variants.begin(), variants.end(), [](const auto& a, const auto& b) { return a.key == b.key; }),
      variants.end());
  const Pools pools = pools_of(variants);
  Builder b;

  std::size_t a_index = 0, c_index = 0, d_index = 0;
  for (const auto& voice : voices) {
    if (voice.language.empty()) continue;
    // provider_a: every language, rotated everyday variants plus one novelty voice.
    {
      auto chosen = pick(pools.female, 3 * a_index, 3);
      for (auto* v : pick(pools.male, 3 * a_index, 3)) chosen.push_back(v);
      for (auto* v : pick(pools.novelty, a_index, 1)) chosen.push_back(v);
      for (const auto* v : chosen) {
        b.add("provider_a", alphanumeric_id(seed_of("provider_a", voice, *v), 20), voice, *v, true);
      }
      ++a_index;
    }
    if (in(kProviderB, voice.language)) {
      for (const auto* v : pools.everyday) {
        const std::string base = slug(voice.language) + "-" + slug(display_name(v->name));
        std::string id = base;
        for (int n = 2; b.taken("provider_b", id); ++n) id = base + "-" + std::to_string(n);
        b.add("provider_b", id, voice, *v, false);
      }
    }
    if (in(kProviderC, voice.language)) {
      auto chosen = pick(pools.female, 4 * c_index, 4);
      for (auto* v : pick(pools.male, 4 * c_index, 4)) chosen.push_back(v);
      for (const auto* v : chosen) b.add("provider_c", uuid_from(seed_of("provider_c", voice, *v)), voice, *v, false);
      ++c_index;
    }
    if (in(kProviderDLanguages, voice.language)) {
      auto chosen = pick(pools.female, 3 * d_index, 3);
      for (auto* v : pick(pools.male, 3 * d_index, 3)) chosen.push_back(v);
      for (const auto* v : chosen) b.add("provider_d", hex32_from(seed_of("provider_d", voice, *v)), voice, *v, false);
      ++d_index;
    }
  }
  return b.take();
}

const std::vector<TagSeed>& tag_vocabulary() {
  static const std::vector<TagSeed> tags{
      {"female", "Female", "Женский"},
      {"male", "Male", "Мужской"},
      {"young", "Young", "Молодой"},
      {"middle_aged", "Middle-aged", "Средних лет"},
      {"old", "Old", "Пожилой"},
      {"narration", "Narration", "Дикторский"},
      {"conversational", "Conversational", "Разговорный"},
      {"news", "News", "Новостной"},
      {"storytelling", "Storytelling", "Повествовательный"},
      {"calm", "Calm", "Спокойный"},
      {"warm", "Warm", "Тёплый"},
      {"energetic", "Energetic", "Энергичный"},
      {"deep", "Deep", "Низкий"},
      {"bright", "Bright", "Звонкий"},
      {"whisper", "Whisper", "Шёпот"},
      {"robotic", "Robotic", "Роботизированный"},
      {"character", "Character", "Персонаж"},
      {"multilingual", "Multilingual", "Многоязычный"},
  };
  return tags;
}

std::string alphanumeric_id(std::string_view seed, std::size_t length) {
  static constexpr char kAlphabet[] = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz";
  std::string out;
  auto digest = crypto::sha256(seed);
  std::size_t i = 0;
  while (out.size() < length) {
    if (i == digest.size()) {
      digest = crypto::sha256(std::string_view(reinterpret_cast<const char*>(digest.data()), digest.size()));
      i = 0;
    }
    out += kAlphabet[digest[i++] % 62];
  }
  return out;
}

std::string uuid_from(std::string_view seed) {
  auto d = crypto::sha256(seed);
  d[6] = static_cast<std::uint8_t>((d[6] & 0x0F) | 0x50);  // version 5 (name-based)
  d[8] = static_cast<std::uint8_t>((d[8] & 0x3F) | 0x80);  // RFC 4122 variant
  const std::string hex = crypto::to_hex(std::span<const std::uint8_t>(d.data(), 16));
  return hex.substr(0, 8) + "-" + hex.substr(8, 4) + "-" + hex.substr(12, 4) + "-" + hex.substr(16, 4) + "-" +
         hex.substr(20, 12);
}

std::string hex32_from(std::string_view seed) {
  auto d = crypto::sha256(seed);
  return crypto::to_hex(std::span<const std::uint8_t>(d.data(), 16));
}

std::string lumvoice_id(std::string_view service, std::string_view voice_id) {
  return uuid_from("lumvoice|" + std::string(service) + "|" + std::string(voice_id));
}

std::string slug(std::string_view text) {
  std::string out;
  for (const char c : text) {
    const char l = ascii_lower(c);
    if ((l >= 'a' && l <= 'z') || (l >= '0' && l <= '9')) out += l;
    else if (!out.empty() && out.back() != '-') out += '-';
  }
  while (!out.empty() && out.back() == '-') out.pop_back();
  return out;
}

std::string display_name(std::string_view raw) {
  auto is_lower = [](char c) { return c >= 'a' && c <= 'z'; };
  auto is_upper = [](char c) { return c >= 'A' && c <= 'Z'; };
  auto is_digit = [](char c) { return c >= '0' && c <= '9'; };
  std::string spaced;
  for (std::size_t i = 0; i < raw.size(); ++i) {
    char c = raw[i] == '_' ? ' ' : raw[i];
    if (i > 0) {
      const char p = raw[i - 1];
      if ((is_upper(c) && is_lower(p)) || (is_digit(c) && (is_lower(p) || is_upper(p)))) spaced += ' ';
    }
    spaced += c;
  }
  std::string out;
  bool word_start = true;
  for (char c : spaced) {
    if (c == ' ') {
      if (!out.empty() && out.back() != ' ') out += ' ';
      word_start = true;
      continue;
    }
    out += word_start && is_lower(c) ? static_cast<char>(c - 'a' + 'A') : c;
    word_start = false;
  }
  while (!out.empty() && out.back() == ' ') out.pop_back();
  return out;
}

std::string primary_language(std::string_view tag) {
  const auto dash = tag.find('-');
  return ascii_lower(tag.substr(0, dash));
}

}  // namespace mediagen::voices
