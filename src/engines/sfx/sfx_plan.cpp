// Reading a prompt against the tables: which recipes, which modifiers, which default length.
#include <algorithm>
#include <cmath>

#include "mediagen/engines/prompt.hpp"
#include "mediagen/engines/sfx.hpp"
#include "sfx_recipes.hpp"

namespace mediagen::engines {
namespace sfx {
namespace {

// The index of the first word some stem matches, or words.size().
std::size_t first_match(const std::vector<std::string>& words, std::span<const std::string_view> stems) {
  for (std::size_t i = 0; i < words.size(); ++i) {
    for (auto stem : stems) {
      if (stem_matches(words[i], stem)) return i;
    }
  }
  return words.size();
}

// Recipes named by the prompt, in the order it names them; weak stems only when nothing else.
std::vector<const Recipe*> pick_layers(const std::vector<std::string>& words) {
  std::vector<std::pair<std::size_t, const Recipe*>> found;
  for (bool weak : {false, true}) {
    for (const auto& recipe : recipes()) {
      const std::size_t at = first_match(words, weak ? recipe.weak_stems : recipe.stems);
      if (at < words.size()) found.emplace_back(at, &recipe);
    }
    if (!found.empty()) break;
  }
  // Stable: two recipes named by one word keep table order.
  std::stable_sort(found.begin(), found.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
  std::vector<const Recipe*> layers;
  for (const auto& [at, recipe] : found) {
    if (layers.size() < kMaxSfxLayers) layers.push_back(recipe);
  }
  if (layers.empty()) layers.push_back(&fallback_recipe());
  return layers;
}

}  // namespace

Plan plan_for(std::string_view prompt) {
  const auto words = prompt_words(prompt);
  Plan plan;
  plan.layers = pick_layers(words);
  for (const auto& modifier : modifiers()) {
    if (first_match(words, modifier.stems) < words.size()) modifier.apply(plan.shape);
  }
  std::int64_t longest = 0;
  for (const auto* recipe : plan.layers) longest = std::max(longest, recipe->default_ms);
  const auto scaled = static_cast<std::int64_t>(std::llround(static_cast<double>(longest) * plan.shape.length));
  plan.default_ms = std::clamp(scaled, kSfxMinDurationMs, kSfxMaxDurationMs);
  return plan;
}

}  // namespace sfx

std::vector<std::string_view> sfx_recipe_names() {
  std::vector<std::string_view> names;
  for (const auto& recipe : sfx::recipes()) names.push_back(recipe.name);
  return names;
}

std::string_view sfx_recipe_for(std::string_view prompt) { return sfx::plan_for(prompt).layers.front()->name; }

std::vector<std::string_view> sfx_recipes_for(std::string_view prompt) {
  std::vector<std::string_view> names;
  for (const auto* recipe : sfx::plan_for(prompt).layers) names.push_back(recipe->name);
  return names;
}

std::int64_t sfx_default_duration_ms(std::string_view prompt) { return sfx::plan_for(prompt).default_ms; }

}  // namespace mediagen::engines
