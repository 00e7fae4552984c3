#pragma once
// The sound-effect engine: procedural synthesis chosen from a prompt (English or Russian).
//
// A prompt's words (prompt_words.hpp) pick up to kMaxSfxLayers recipes from a table (rain,
// thunder, bell, dog bark, ...; sfx_recipe_names() lists them), in the order the prompt names
// them, and any number of modifiers from a second table (distant, heavy, light, short, long,
// loud, quiet, slow, fast, close, metallic, echo). Every recipe is built from noise
// (white/pink/brown), oscillators, envelopes, biquad filters and small physical models (modal
// resonators, stick-slip friction); "dog bark" is a synthetic approximation (a pulse train
// through formant filters), not a recording. The layers are mixed (the first one loudest),
// the modifiers shape the mix (distance: quieter, low-passed, smeared by a small reverb), and
// the result is levelled: peak at -4 dBFS and RMS at most -16 dBFS, both moved by the loudness
// modifiers, never above -2 dBFS before encoding (MP3 encoding can add about half a dB); short
// fades so neither end clicks (3 ms in, so an explosion still starts hard).
//
// Unknown prompt: no recipe matches, and the fallback "ambience" plays: a soft low-passed pink
// noise whose colour and slow swell follow the seed. Never an error.
//
// Output: 44.1 kHz mono MP3 at 128 kbit/s CBR (kSfxMp3Options says why). The PCM is cut so that
// the whole decoded stream (encoder delay and last-frame padding included) lasts the request
// within half an MP3 frame (13 ms).
//
// Determinism: a splitmix64 generator seeded from the request's seed drives every random detail
// (noise, event timing, pitch spread); no std distributions, no global state. Same request, same
// bytes; another seed, other details.
//
// STK is not used here although the build links it: its Noise and Shakers draw from the C
// library's shared rand(), and its filters register themselves in a static list on
// construction, so neither determinism nor calls from several threads would hold.
//
// Thread safety: everything here is pure computation on the caller's stack; generate() may run
// in any number of threads at once.
#include <cstdint>
#include <string_view>
#include <vector>

#include "mediagen/engines/audio.hpp"
#include "mediagen/engines/prompt.hpp"

namespace mediagen::engines {

inline constexpr int kSfxSampleRate = 44100;
inline constexpr std::int64_t kSfxMinDurationMs = 500;
inline constexpr std::int64_t kSfxMaxDurationMs = 22000;
inline constexpr std::size_t kMaxSfxLayers = 3;
inline constexpr std::string_view kSfxFallbackRecipe = "ambience";

// 128 kbit/s mono: broadband noise (rain, applause, fire, wind) is the hardest material for MP3,
// and at 96 kbit/s its highs turn audibly watery; 128 keeps them clean for 16 kB a second.
inline constexpr Mp3Options kSfxMp3Options{.bitrate_kbps = 128, .quality = 5};

// The recipes' names, in table order (the fallback included).
std::vector<std::string_view> sfx_recipe_names();

// The recipe a prompt plays first (its main layer); kSfxFallbackRecipe when none matches.
std::string_view sfx_recipe_for(std::string_view prompt);

// Every recipe the prompt picks, main layer first (at most kMaxSfxLayers; never empty).
std::vector<std::string_view> sfx_recipes_for(std::string_view prompt);

// What generate() renders when duration_ms is nullopt: the longest default of the prompt's
// recipes, scaled by its length modifiers (short, long), within kSfxMinDurationMs..kSfxMaxDurationMs.
std::int64_t sfx_default_duration_ms(std::string_view prompt);

// The synthesis step alone (what generate() encodes): levelled mono PCM at kSfxSampleRate, cut
// so that its MP3 decodes to the requested length. The duration must lie in
// kSfxMinDurationMs..kSfxMaxDurationMs (nullopt: the default). Public for the benchmark.
struct SfxPcm {
  std::vector<std::int16_t> samples;
  std::int64_t duration_ms = 0;  // the request's (or the default) duration
};
boost::system::result<SfxPcm, EngineFailure> sfx_render(const PromptRequest& request);

// A duration outside kSfxMinDurationMs..kSfxMaxDurationMs is a technical failure (the order
// code checks the API's bounds first); so is an encoder error. Audio::words stays empty.
class SfxEngine final : public PromptEngine {
 public:
  boost::system::result<Audio, EngineFailure> generate(const PromptRequest& request) override;
};

}  // namespace mediagen::engines
