#include "espeak_runtime.hpp"

#include <espeak-ng/speak_lib.h>

#include <algorithm>
#include <exception>
#include <new>

#include "mediagen/core/ascii.hpp"

namespace mediagen::engines::detail {
namespace {

// More audio than this from one job is a runaway (a chunk holds at most a few thousand
// characters, a few minutes of speech): the job stops and fails.
constexpr std::size_t kMaxSeconds = 30 * 60;

// The job being synthesised; touched only on the synthesis thread.
struct Collector {
  SynthOutput* out = nullptr;
  std::size_t max_samples = 0;
  bool overflow = false;
  bool out_of_memory = false;
};
Collector collector;

// Called from espeak-ng's C code: no exception may leave it. Returning 1 stops synthesis.
int on_synth(short* wav, int samples, espeak_EVENT* events) noexcept {
  if (collector.out == nullptr) return 0;
  auto& out = *collector.out;
  try {
    if (wav != nullptr && samples > 0) {
      if (out.pcm.size() + static_cast<std::size_t>(samples) > collector.max_samples) {
        collector.overflow = true;
        return 1;
      }
      out.pcm.insert(out.pcm.end(), wav, wav + samples);
    }
    for (auto* e = events; e != nullptr && e->type != espeakEVENT_LIST_TERMINATED; ++e) {
      if (e->type == espeakEVENT_WORD) out.words.push_back({e->text_position, e->length, e->audio_position});
    }
  } catch (const std::bad_alloc&) {
    collector.out_of_memory = true;
    return 1;
  }
  return 0;
}

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

EspeakRuntime::EspeakRuntime() {
  std::promise<void> started;
  auto ready = started.get_future();
  thread_ = std::thread([this, &started] { run(started); });
  ready.wait();
}

void EspeakRuntime::run(std::promise<void>& started) {
  // Synchronous retrieval mode: espeak_Synth returns when the text is spoken, calling
  // on_synth with the audio as it goes. DONT_EXIT: report missing data instead of exit().
  const int rate = espeak_Initialize(AUDIO_OUTPUT_SYNCHRONOUS, 0, nullptr, espeakINITIALIZE_DONT_EXIT);
  if (rate <= 0) {
    start_error_ = "espeak-ng could not start (data files missing?)";
  } else {
    sample_rate_ = rate;
    espeak_SetSynthCallback(&on_synth);
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
    if (voices_.empty()) start_error_ = "espeak-ng lists no voices";
  }
  started.set_value();  // `started` lives in the constructor's frame: not touched after this

  for (;;) {
    Pending* pending = nullptr;
    {
      std::unique_lock lock(mutex_);
      wake_.wait(lock, [this] { return !queue_.empty(); });
      pending = queue_.front();
      queue_.pop_front();
    }
    try {
      pending->done.set_value(execute(*pending->job));
    } catch (const std::exception& e) {  // bad_alloc: fail the job, keep the thread
      collector = Collector{};
      pending->done.set_value(EngineFailure::technical(std::string("speech synthesis failed: ") + e.what()));
    }
  }
}

boost::system::result<SynthOutput, EngineFailure> EspeakRuntime::synthesize(const SynthJob& job) {
  Pending pending{&job, {}};
  auto done = pending.done.get_future();
  {
    std::lock_guard lock(mutex_);
    queue_.push_back(&pending);
  }
  wake_.notify_one();
  return done.get();
}

boost::system::result<SynthOutput, EngineFailure> EspeakRuntime::execute(const SynthJob& job) {
  if (!start_error_.empty()) return EngineFailure::technical(start_error_);

  if (job.voice != current_voice_) {
    current_voice_.clear();
    if (espeak_SetVoiceByName(job.voice.c_str()) != EE_OK) {
      return EngineFailure::technical("espeak-ng could not load voice '" + job.voice + "'");
    }
    current_voice_ = job.voice;
  }
  // Every parameter is set for every job: they are global and outlive the previous job, and a
  // voice change alone does not reset them (after a Russian job, English would speak 5% slower).
  espeak_SetParameter(espeakRATE, job.parameters.rate_wpm, 0);
  espeak_SetParameter(espeakPITCH, job.parameters.pitch, 0);
  espeak_SetParameter(espeakRANGE, job.parameters.pitch_range, 0);
  espeak_SetParameter(espeakVOLUME, job.parameters.volume, 0);

  SynthOutput out;
  // About 60 ms of audio per character at the default rate; reserving avoids regrowing.
  out.pcm.reserve(std::min<std::size_t>(job.text->size() * 1400 + 22050, 22050 * 600));
  collector = Collector{&out, kMaxSeconds * static_cast<std::size_t>(sample_rate_), false};
  // No espeakSSML and no espeakPHONEMES: the text is spoken as written, nothing is markup.
  const auto status = espeak_Synth(job.text->c_str(), job.text->size() + 1, 0, POS_CHARACTER, 0,
                                   espeakCHARS_UTF8 | espeakENDPAUSE, nullptr, nullptr);
  const Collector finished = collector;
  collector = Collector{};
  if (finished.overflow) return EngineFailure::technical("speech longer than 30 minutes: synthesis stopped");
  if (finished.out_of_memory) return EngineFailure::technical("out of memory during speech synthesis");
  if (status != EE_OK) return EngineFailure::technical("espeak-ng synthesis failed (" + std::to_string(status) + ")");
  return out;
}

}  // namespace mediagen::engines::detail
