#include "espeak_runtime.hpp"

#include <espeak-ng/speak_lib.h>

#include <algorithm>

#include "mediagen/core/ascii.hpp"

namespace mediagen::engines::detail {
namespace {

EspeakGender gender_of(unsigned char g) {
  return g == 1 ? EspeakGender::male : g == 2 ? EspeakGender::female : EspeakGender::unknown;
}

// espeak_VOICE::languages: (priority byte, NUL-terminated tag) pairs, ended by a zero byte.
std::vector<EspeakLanguage> languages_of(const char* p) {
  std::vector<EspeakLanguage> out;
  if (p == nullptr) return out;
  while (*p != 0) {
    const int priority = static_cast<unsigned char>(*p++);
    std::string tag(p);
    p += tag.size() + 1;
    out.push_back({ascii_lower(tag), priority});
  }
  return out;
}

std::string text_or_empty(const char* s) { return s == nullptr ? std::string() : std::string(s); }

}  // namespace

EspeakRuntime& EspeakRuntime::instance() {
  // Deliberately never destroyed (see the header).
  static EspeakRuntime* runtime = new EspeakRuntime();
  return *runtime;
}

EspeakRuntime::EspeakRuntime() : helpers_(HelperOptions{.path = default_helper_path()}) {
  // Only for the lists: this process's espeak-ng speaks nothing. DONT_EXIT: report missing data
  // instead of exit().
  const int rate = espeak_Initialize(AUDIO_OUTPUT_SYNCHRONOUS, 0, nullptr, espeakINITIALIZE_DONT_EXIT);
  if (rate <= 0) {
    start_error_ = "espeak-ng could not start (data files missing?)";
    return;
  }
  for (auto** v = espeak_ListVoices(nullptr); v != nullptr && *v != nullptr; ++v) {
    voices_.push_back({text_or_empty((*v)->name), text_or_empty((*v)->identifier), languages_of((*v)->languages),
                       gender_of((*v)->gender), (*v)->age});
  }
  espeak_VOICE variant_spec{};
  variant_spec.languages = "variant";
  for (auto** v = espeak_ListVoices(&variant_spec); v != nullptr && *v != nullptr; ++v) {
    std::string identifier = text_or_empty((*v)->identifier);
    const auto slash = identifier.rfind('/');
    std::string key = slash == std::string::npos ? identifier : identifier.substr(slash + 1);
    variants_.push_back({text_or_empty((*v)->name), std::move(key), std::move(identifier), gender_of((*v)->gender),
                         (*v)->age});
  }
  auto by_identifier = [](const auto& a, const auto& b) { return a.identifier < b.identifier; };
  std::sort(voices_.begin(), voices_.end(), by_identifier);
  std::sort(variants_.begin(), variants_.end(), by_identifier);
  if (voices_.empty()) {
    start_error_ = "espeak-ng lists no voices";
    return;
  }
  // A missing or broken helper shows at start, not at the first order.
  if (auto warm = helpers_.warm_up(); !warm) start_error_ = warm.error().detail;
}

boost::system::result<SynthOutput, EngineFailure> EspeakRuntime::synthesize(const SynthJob& job) {
  if (!start_error_.empty()) return EngineFailure::technical(start_error_);
  return helpers_.synthesize(job);
}

}  // namespace mediagen::engines::detail
