#include "mediagen/orders/request.hpp"

#include <cmath>

#include "mediagen/core/json_text.hpp"
#include "mediagen/engines/sfx.hpp"
#include "mediagen/orders/order.hpp"
#include "mediagen/orders/text.hpp"

namespace mediagen::orders {
namespace {

using nlohmann::json;

Message between(const std::string& name, std::string_view min, std::string_view max) {
  return Message{"validation.between", {{"attribute", name}, {"min", std::string(min)}, {"max", std::string(max)}}};
}

// Seconds as a number (integer or decimal) within [min_ms, max_ms], kept in milliseconds.
std::optional<std::int64_t> read_seconds(const json& data, std::int64_t min_ms, std::int64_t max_ms,
                                         std::string_view min_text, std::string_view max_text, FieldErrors& errors) {
  const json* v = present_field(data, "duration_seconds");
  if (!v) return std::nullopt;
  const std::string name = "task_data.duration_seconds";
  if (!v->is_number()) {
    errors.add(name, Message{"validation.numeric", {{"attribute", name}}});
    return std::nullopt;
  }
  const double ms = v->get<double>() * 1000.0;
  if (!(ms >= static_cast<double>(min_ms) && ms <= static_cast<double>(max_ms))) {  // NaN-proof
    errors.add(name, between(name, min_text, max_text));
    return std::nullopt;
  }
  return static_cast<std::int64_t>(std::llround(ms));
}


}  // namespace

const json* present_field(const json& object, const char* name) {
  auto it = object.find(name);
  return it == object.end() || it->is_null() ? nullptr : &*it;
}

std::optional<std::int64_t> read_task_integer(const json& data, const char* key, std::int64_t min, std::int64_t max,
                                              FieldErrors& errors) {
  const json* v = present_field(data, key);
  if (!v) return std::nullopt;
  const std::string name = std::string("task_data.") + key;
  if (!v->is_number_integer()) {
    errors.add(name, Message{"validation.integer", {{"attribute", name}}});
    return std::nullopt;
  }
  // A value past int64 arrives as unsigned: compare in the type it has.
  const bool fits = v->is_number_unsigned()
                        ? v->get<std::uint64_t>() >= static_cast<std::uint64_t>(min) &&
                              v->get<std::uint64_t>() <= static_cast<std::uint64_t>(max)
                        : v->get<std::int64_t>() >= min && v->get<std::int64_t>() <= max;
  if (!fits) {
    errors.add(name, between(name, std::to_string(min), std::to_string(max)));
    return std::nullopt;
  }
  return v->is_number_unsigned() ? static_cast<std::int64_t>(v->get<std::uint64_t>()) : v->get<std::int64_t>();
}

GenerativeParams read_generative_params(TaskType task_type, const json& task_data, FieldErrors& errors) {
  GenerativeParams p;
  if (task_type == TaskType::sfx) {
    p.duration_ms = read_seconds(task_data, kSfxMinMs, kSfxMaxMs, "0.5", "22", errors);
  } else if (task_type == TaskType::music) {
    p.duration_ms = read_seconds(task_data, kMusicMinMs, kMusicMaxMs, "5", "300", errors);
    p.variants = static_cast<int>(read_task_integer(task_data, "n_variants", 1, kMaxMusicVariants, errors).value_or(1));
  }
  if (auto seed = read_task_integer(task_data, "seed", 0, 4'294'967'295, errors)) p.seed = static_cast<std::uint32_t>(*seed);
  return p;
}

std::int64_t generative_duration_ms(TaskType task_type, std::string_view prompt, const GenerativeParams& params) {
  if (params.duration_ms) return *params.duration_ms;
  if (task_type == TaskType::sfx) return engines::sfx_default_duration_ms(prompt);
  return kMusicDefaultMs;
}

ChunkerOptions generative_chunker(TaskType task_type) noexcept {
  const std::int64_t max_ms = task_type == TaskType::sfx ? kSfxMaxMs : kMusicMaxMs;
  return {.capacity = static_cast<std::size_t>(max_ms / 1000), .unit = CapacityUnit::seconds,
          .mode = GenerationMode::ordinary};
}

ChunkPlan plan_generative(std::string_view prompt, std::int64_t duration_ms, int variants) {
  ChunkPlan plan;
  plan.cleaned = std::string(trim_spaces(prompt));
  plan.total_chars = count_code_points(plan.cleaned);
  const auto seconds = static_cast<std::size_t>((std::max<std::int64_t>(duration_ms, 1) + 999) / 1000);
  for (int i = 0; i < variants; ++i) {
    ChunkText c;
    c.index = static_cast<std::size_t>(i);
    c.text = plan.cleaned;
    c.length = plan.total_chars;
    c.raw_length = seconds;
    c.billable_length = seconds;
    plan.billable_chars += seconds;
    plan.chunks.push_back(std::move(c));
  }
  return plan;
}

std::string generative_engine_request(std::string_view engine, TaskType task_type, std::int64_t duration_ms,
                                      std::uint32_t seed) {
  return to_json_text(json{{"engine", engine}, {"task_type", task_type_name(task_type)}, {"duration_ms", duration_ms}, {"seed", seed}});
}

}  // namespace mediagen::orders
