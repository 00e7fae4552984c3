// A clone profile's JSON (voice_profile.hpp): kept apart from the builder so that the reader,
// which takes stored and engine-request JSON, is fuzzed without the feature code.
#include <algorithm>
#include <cmath>

#include <nlohmann/json.hpp>

#include "mediagen/engines/voice.hpp"

namespace mediagen::engines {
namespace {

std::optional<std::string> string_of(const nlohmann::json& j, const char* key) {
  auto it = j.find(key);
  if (it == j.end() || !it->is_string()) return std::nullopt;
  return it->get<std::string>();
}

std::optional<int> int_of(const nlohmann::json& j, const char* key, int lo, int hi) {
  auto it = j.find(key);
  if (it == j.end() || !it->is_number()) return std::nullopt;
  const double v = it->get<double>();
  if (!std::isfinite(v)) return std::nullopt;
  return static_cast<int>(std::lround(std::clamp(v, static_cast<double>(lo), static_cast<double>(hi))));
}

}  // namespace

nlohmann::json voice_profile_to_json(const VoiceProfile& p) {
  return nlohmann::json{{"voice", p.espeak_voice},
                        {"variant", p.espeak_variant},
                        {"pitch", p.pitch},
                        {"range", p.pitch_range},
                        {"rate", p.rate_wpm}};
}

std::optional<VoiceProfile> voice_profile_from_json(const nlohmann::json& j) {
  if (!j.is_object()) return std::nullopt;
  auto voice = string_of(j, "voice");
  auto variant = string_of(j, "variant");
  auto pitch = int_of(j, "pitch", 0, 100);
  auto range = int_of(j, "range", 0, 100);
  auto rate = int_of(j, "rate", 80, 450);
  if (!voice || voice->empty() || !variant || !pitch || !range || !rate) return std::nullopt;
  return VoiceProfile{std::move(*voice), std::move(*variant), *pitch, *range, *rate};
}

}  // namespace mediagen::engines
