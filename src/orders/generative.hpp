#pragma once
// Sound-effect and music orders (CONTRACTS "Fixed choices"): what task_data asks for, and the
// plan that prices it. Both services are billed by the audio they make: one token per started
// second of each file (an sfx order makes one file, a music order one per variant), charged at
// the service model's price per 1,000 tokens like speech. The same reading and the same plan
// serve order creation and the chunk preview, so the preview's estimate is the order's price.
//
// task_data
//   sfx    text (the prompt), duration_seconds 0.5..22 (default: the prompt's recipe decides),
//          seed 0..4294967295 (default: random)
//   music  prompt, duration_seconds 5..300 (default 30), n_variants 1..4 (default 1), seed
// Each variant is one chunk whose text is the prompt; variant i renders seed + i.
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

#include "field_errors.hpp"
#include "mediagen/orders/chunker.hpp"
#include "mediagen/orders/order.hpp"

namespace mediagen::orders {

inline constexpr std::int64_t kSfxMinMs = 500;
inline constexpr std::int64_t kSfxMaxMs = 22'000;
inline constexpr std::int64_t kMusicMinMs = 5'000;
inline constexpr std::int64_t kMusicMaxMs = 300'000;
inline constexpr std::int64_t kMusicDefaultMs = 30'000;
inline constexpr int kMaxMusicVariants = 4;


// The member `name` of a JSON object, or nullptr when it is absent or null (the same to a client).
const nlohmann::json* present_field(const nlohmann::json& object, const char* name);

// task_data.<key> as an integer in [min, max]; absent or null: nullopt; anything else is added to
// `errors` under "task_data.<key>" (and gives nullopt).
std::optional<std::int64_t> read_task_integer(const nlohmann::json& task_data, const char* key, std::int64_t min,
                                              std::int64_t max, FieldErrors& errors);

struct GenerativeParams {
  std::optional<std::int64_t> duration_ms;  // as asked; nullopt: the default
  int variants = 1;
  std::optional<std::uint32_t> seed;        // nullopt: chosen at random at creation
};

// task_data's duration_seconds, n_variants (music) and seed; each bad field is added to
// `errors` under "task_data.<name>". The prompt itself is read by the caller.
GenerativeParams read_generative_params(std::string_view task_type, const nlohmann::json& task_data,
                                        FieldErrors& errors);

// The length each file will have: the asked duration, or the default (music 30 s; sfx the
// prompt's recipe, as the engine will choose it).
std::int64_t generative_duration_ms(std::string_view task_type, std::string_view prompt, const GenerativeParams& params);

// Capacity of one chunk, in seconds: the service's longest file.
ChunkerOptions generative_chunker(std::string_view task_type) noexcept;

// One chunk per variant, each the (trimmed) prompt, each billing the started seconds of its file.
ChunkPlan plan_generative(std::string_view prompt, std::int64_t duration_ms, int variants);

// orders.engine_request of such an order: {"engine", "task_type", "duration_ms", "seed"}.
std::string generative_engine_request(std::string_view engine, std::string_view task_type, std::int64_t duration_ms,
                                      std::uint32_t seed);

}  // namespace mediagen::orders
