// Sound-effect and music requests: what task_data may hold, and the plan that prices it.
#include "mediagen/orders/request.hpp"

#include <gtest/gtest.h>

#include <limits>

#include "mediagen/engines/sfx.hpp"

namespace mediagen::orders {
namespace {

using nlohmann::json;

std::vector<std::string> bad_fields(TaskType task_type, const json& data) {
  FieldErrors errors;
  read_generative_params(task_type, data, errors);
  std::vector<std::string> names;
  if (auto e = errors.take()) {
    for (const auto& f : e->fields) names.push_back(f.field);
  }
  return names;
}

TEST(GenerativeParams, ReadsDurationVariantsAndSeed) {
  FieldErrors errors;
  auto p = read_generative_params(TaskType::music, json{{"duration_seconds", 12.5}, {"n_variants", 3}, {"seed", 4294967295u}},
                                  errors);
  EXPECT_TRUE(errors.empty());
  EXPECT_EQ(p.duration_ms, 12'500);
  EXPECT_EQ(p.variants, 3);
  EXPECT_EQ(p.seed, 4294967295u);
  p = read_generative_params(TaskType::sfx, json{{"duration_seconds", 0.5}, {"n_variants", 3}}, errors);
  EXPECT_TRUE(errors.empty());
  EXPECT_EQ(p.duration_ms, 500);
  EXPECT_EQ(p.variants, 1) << "sfx makes one file whatever n_variants says";
  p = read_generative_params(TaskType::music, json::object(), errors);
  EXPECT_EQ(p.duration_ms, std::nullopt);
  EXPECT_EQ(p.seed, std::nullopt);
}

TEST(GenerativeParams, RefusesEachFieldOutOfItsRange) {
  using V = std::vector<std::string>;
  const V duration{"task_data.duration_seconds"}, variants{"task_data.n_variants"}, seed{"task_data.seed"};
  EXPECT_EQ(bad_fields(TaskType::music, {{"n_variants", 5}}), variants);
  EXPECT_EQ(bad_fields(TaskType::music, {{"n_variants", 0}}), variants);
  EXPECT_EQ(bad_fields(TaskType::music, json::parse(R"({"n_variants": 0})")), variants);  // parsed as unsigned
  EXPECT_EQ(bad_fields(TaskType::music, {{"n_variants", 1.5}}), variants);
  EXPECT_EQ(bad_fields(TaskType::music, {{"duration_seconds", 4.999}}), duration);
  EXPECT_EQ(bad_fields(TaskType::music, {{"duration_seconds", 300.01}}), duration);
  EXPECT_EQ(bad_fields(TaskType::music, {{"duration_seconds", "30"}}), duration);
  EXPECT_EQ(bad_fields(TaskType::sfx, {{"duration_seconds", 0}}), duration);
  EXPECT_EQ(bad_fields(TaskType::sfx, {{"duration_seconds", 22.001}}), duration);
  EXPECT_EQ(bad_fields(TaskType::sfx, {{"duration_seconds", 1e308}}), duration);
  EXPECT_EQ(bad_fields(TaskType::sfx, {{"duration_seconds", std::numeric_limits<double>::quiet_NaN()}}), duration);
  EXPECT_EQ(bad_fields(TaskType::sfx, {{"seed", -1}}), seed);
  EXPECT_EQ(bad_fields(TaskType::sfx, {{"seed", 4294967296ull}}), seed);
  EXPECT_EQ(bad_fields(TaskType::sfx, {{"seed", 18446744073709551615ull}}), seed);
  EXPECT_EQ(bad_fields(TaskType::music, {{"n_variants", 9}, {"seed", "x"}}), (V{"task_data.n_variants", "task_data.seed"}));
}

TEST(GenerativePlan, OneChunkPerVariantEachBillingItsStartedSeconds) {
  const auto plan = plan_generative("  slow calm piano ", 30'001, 3);
  ASSERT_EQ(plan.chunks.size(), 3u);
  for (std::size_t i = 0; i < 3; ++i) {
    EXPECT_EQ(plan.chunks[i].index, i);
    EXPECT_EQ(plan.chunks[i].text, "slow calm piano");
    EXPECT_EQ(plan.chunks[i].billable_length, 31u);
    EXPECT_EQ(plan.chunks[i].raw_length, 31u);
  }
  EXPECT_EQ(plan.billable_chars, 93u);
  EXPECT_EQ(plan_generative("pop", 500, 1).billable_chars, 1u);
  EXPECT_EQ(generative_chunker(TaskType::sfx).capacity, 22u);
  EXPECT_EQ(generative_chunker(TaskType::music).capacity, 300u);
  EXPECT_EQ(generative_chunker(TaskType::music).unit, CapacityUnit::seconds);
}

TEST(GenerativePlan, DefaultsAreMusicsThirtySecondsAndTheEffectsOwn) {
  EXPECT_EQ(generative_duration_ms(TaskType::music, "anything", {}), kMusicDefaultMs);
  EXPECT_EQ(generative_duration_ms(TaskType::sfx, "gunshot", {}), engines::sfx_default_duration_ms("gunshot"));
  EXPECT_EQ(generative_duration_ms(TaskType::sfx, "gunshot", {.duration_ms = 7'000}), 7'000);
  EXPECT_NE(engines::sfx_default_duration_ms("gunshot"), engines::sfx_default_duration_ms("rain"));
}

}  // namespace
}  // namespace mediagen::orders
