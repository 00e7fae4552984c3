// An upstream provider's voice list as catalogue rows (catalogue_builder.hpp).
#include <algorithm>
#include <set>

#include "mediagen/core/uuid_id.hpp"
#include "mediagen/voices/catalogue_builder.hpp"

namespace mediagen::voices {
namespace {

bool all_of(std::string_view s, bool (*ok)(char)) { return !s.empty() && std::all_of(s.begin(), s.end(), ok); }
bool alnum(char c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9'); }
bool lower_hex(char c) { return (c >= 'a' && c <= 'f') || (c >= '0' && c <= '9'); }
bool name_char(char c) { return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '-'; }

// provider_c names its voices by lowercase uuids.
bool is_lowercase_uuid(std::string_view s) {
  const auto id = UuidId<struct ProviderVoiceTag>::parse(s);
  return id && id->str() == s;
}

}  // namespace

std::string spec_voice_id(std::string_view service, std::string_view id) {
  const std::string seed = "upstream|" + std::string(service) + "|" + std::string(id);
  if (service == "provider_a") return id.size() == 20 && all_of(id, alnum) ? std::string(id) : alphanumeric_id(seed, 20);
  if (service == "provider_c") return is_lowercase_uuid(id) ? std::string(id) : uuid_from(seed);
  if (service == "provider_d") return id.size() == 32 && all_of(id, lower_hex) ? std::string(id) : hex32_from(seed);
  if (service == "provider_b") {
    if (id.size() <= 64 && all_of(id, name_char)) return std::string(id);
    const std::string s = slug(id);
    return s.empty() || s.size() > 64 ? alphanumeric_id(seed, 20) : s;
  }
  return id.size() <= 128 ? std::string(id) : hex32_from(seed);
}

std::vector<VoiceSeed> upstream_voice_seeds(std::string_view service, const std::vector<ListedVoice>& listed) {
  std::vector<VoiceSeed> out;
  std::set<std::string> taken;
  for (const auto& v : listed) {
    VoiceSeed s;
    s.service = std::string(service);
    s.voice_id = spec_voice_id(service, v.id);
    if (!taken.insert(s.voice_id).second) continue;  // two upstream ids on one voice_id: the first stays
    s.id = lumvoice_id(service, s.voice_id);
    s.upstream_voice_id = v.id;
    s.name = v.name.empty() ? v.id : v.name;
    s.language = v.language.empty() ? "en" : v.language;
    s.locale = s.language;
    s.gender = v.gender == "male" || v.gender == "female" ? v.gender : "neutral";
    s.espeak_voice = s.language;
    s.preview_path = "voices/" + s.service + "/" + s.voice_id + ".mp3";
    out.push_back(std::move(s));
  }
  return out;
}

}  // namespace mediagen::voices
