// The catalogue of the synthesiser installed on this machine.
#include "mediagen/engines/speech.hpp"
#include "mediagen/voices/catalogue_builder.hpp"

namespace mediagen::voices {

std::vector<VoiceSeed> installed_catalogue() {
  std::vector<SourceVoice> source_voices;
  std::vector<SourceVariant> source_variants;
  const auto gender = [](engines::EspeakGender g) {
    return g == engines::EspeakGender::unknown ? std::string() : std::string(engines::to_string(g));
  };
  for (const auto& v : engines::list_espeak_voices()) {
    if (v.languages.empty()) continue;
    source_voices.push_back({v.identifier, v.languages.front().tag, v.name, gender(v.gender)});
  }
  for (const auto& v : engines::list_espeak_variants()) source_variants.push_back({v.key, v.name, gender(v.gender), v.age});
  return build_catalogue(std::move(source_voices), std::move(source_variants));
}

}  // namespace mediagen::voices
