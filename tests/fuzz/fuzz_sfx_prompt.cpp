// Sound-effect prompts (include/mediagen/engines/sfx_engine.hpp) on any bytes. Properties: the
// prompt picks 1..kMaxSfxLayers distinct recipes from the table, the main one first (the fallback
// when none matched); its default length lies in the API's bounds; the start of a render of its
// plan is finite and at most full scale. (That every recipe and modifier is audible at the
// shortest length is a unit test: a full render per input would starve the search.)
#include <algorithm>
#include <cmath>
#include <string_view>

#include "engines/sfx/sfx_recipes.hpp"
#include "fuzz_support.hpp"
#include "mediagen/engines/sfx.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace mediagen::engines;
  const std::string_view prompt = mediagen::fuzz::as_text(data, size);
  const auto names = sfx_recipe_names();
  const auto picked = sfx_recipes_for(prompt);
  FUZZ_CHECK(!picked.empty() && picked.size() <= kMaxSfxLayers);
  FUZZ_CHECK(picked.front() == sfx_recipe_for(prompt));
  for (std::size_t i = 0; i < picked.size(); ++i) {
    FUZZ_CHECK(std::find(names.begin(), names.end(), picked[i]) != names.end());
    FUZZ_CHECK(std::find(picked.begin() + static_cast<long>(i) + 1, picked.end(), picked[i]) == picked.end());
  }
  const auto ms = sfx_default_duration_ms(prompt);
  FUZZ_CHECK(ms >= kSfxMinDurationMs && ms <= kSfxMaxDurationMs);

  const auto plan = sfx::plan_for(prompt);
  constexpr std::size_t samples = 1024;
  const auto pcm = sfx::render_plan(plan, samples, size * 0x9E3779B97F4A7C15ULL);
  FUZZ_CHECK(pcm.size() == samples);
  float peak = 0;
  for (float v : pcm) {
    FUZZ_CHECK(std::isfinite(v));
    peak = std::max(peak, std::abs(v));
  }
  FUZZ_CHECK(peak <= 1.0001f);
  return 0;
}
