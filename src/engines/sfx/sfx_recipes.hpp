#pragma once
// The sound-effect engine's tables: recipes (what a prompt asks for, how to render it) and
// modifiers (how the prompt says it should sound). Both are data; sfx_plan.cpp reads a prompt
// against them.
#include <array>
#include <cstdint>
#include <span>
#include <string_view>
#include <vector>

#include "sfx_dsp.hpp"

namespace mediagen::engines::sfx {

// How the modifiers shape a render. A recipe reads what it can honour; the mixer applies the
// rest (gain, distance, echo, metallic ring) to every layer alike.
struct Shape {
  double intensity = 1.0;  // heavy > 1 (denser, lower, longer tails), light < 1
  double rate = 1.0;       // fast > 1, slow < 1: events per second, sweep speeds
  double pitch = 1.0;      // multiplies a recipe's frequencies (heavy lowers, light raises)
  double gain_db = 0.0;    // loud, quiet, distant, ...
  double distance = 0.0;   // 0 close .. 1 far: low-pass and reverb in the mixer
  double echo = 0.0;       // 0 .. 1: reverb amount
  double length = 1.0;     // scales the default duration (short, long)
  bool metallic = false;   // a ringing comb over the mix
  bool close = false;      // less room
};

using RenderFn = void (*)(std::span<float> out, const Shape& shape, Rng& rng);

// Matching: a stem matches a word that starts with it (has_stem); a stem ending in '=' must be
// the whole word ("light=" is not "lightning", "car=" is not "cart").
// Weak stems ("door", "стук") pick the recipe only when no strong stem of any recipe matched.
struct Recipe {
  std::string_view name;
  std::span<const std::string_view> stems;
  std::span<const std::string_view> weak_stems;
  std::int64_t default_ms;
  double echo;  // the recipe's own room (a drip in a cave, a gunshot's tail), before modifiers
  RenderFn render;
};

struct Modifier {
  std::string_view name;
  std::span<const std::string_view> stems;
  void (*apply)(Shape&);
};

std::span<const Recipe> recipes();
std::span<const Modifier> modifiers();
const Recipe& fallback_recipe();

// Whether a prompt word matches a stem under the rule above.
bool stem_matches(std::string_view word, std::string_view stem);

// Render functions, by family (sfx_weather.cpp, sfx_impacts.cpp, sfx_mechanical.cpp,
// sfx_creatures.cpp, sfx_ui.cpp). Each fills `out` (zeroed) at any scale; the mixer levels it.
void render_rain(std::span<float>, const Shape&, Rng&);
void render_thunder(std::span<float>, const Shape&, Rng&);
void render_wind(std::span<float>, const Shape&, Rng&);
void render_waves(std::span<float>, const Shape&, Rng&);
void render_fire(std::span<float>, const Shape&, Rng&);
void render_drip(std::span<float>, const Shape&, Rng&);
void render_ambience(std::span<float>, const Shape&, Rng&);

void render_explosion(std::span<float>, const Shape&, Rng&);
void render_gunshot(std::span<float>, const Shape&, Rng&);
void render_glass(std::span<float>, const Shape&, Rng&);
void render_knock(std::span<float>, const Shape&, Rng&);
void render_footsteps(std::span<float>, const Shape&, Rng&);

void render_engine(std::span<float>, const Shape&, Rng&);
void render_clock(std::span<float>, const Shape&, Rng&);
void render_creak(std::span<float>, const Shape&, Rng&);
void render_alarm(std::span<float>, const Shape&, Rng&);
void render_bell(std::span<float>, const Shape&, Rng&);
void render_siren(std::span<float>, const Shape&, Rng&);

void render_birds(std::span<float>, const Shape&, Rng&);
void render_dog(std::span<float>, const Shape&, Rng&);
void render_heartbeat(std::span<float>, const Shape&, Rng&);
void render_crowd(std::span<float>, const Shape&, Rng&);
void render_applause(std::span<float>, const Shape&, Rng&);

void render_whoosh(std::span<float>, const Shape&, Rng&);
void render_click(std::span<float>, const Shape&, Rng&);
void render_pop(std::span<float>, const Shape&, Rng&);
void render_laser(std::span<float>, const Shape&, Rng&);
void render_coin(std::span<float>, const Shape&, Rng&);

}  // namespace mediagen::engines::sfx

namespace mediagen::engines::sfx {

// What a prompt asks for: its recipes (main layer first, never empty) and the modifiers' shape.
struct Plan {
  std::vector<const Recipe*> layers;
  Shape shape;
  std::int64_t default_ms = 0;  // within kSfxMinDurationMs..kSfxMaxDurationMs
};

Plan plan_for(std::string_view prompt);

// Renders a plan at `samples` length: the layers mixed and shaped, peak at 1 (or silence).
std::vector<float> render_plan(const Plan& plan, std::size_t samples, std::uint64_t seed);

}  // namespace mediagen::engines::sfx
