#pragma once
#include <optional>
#include <string>
#include <utility>

#include "mediagen/core/api_error.hpp"

namespace mediagen::orders {

// Collects validation failures so one 422 names every bad field.
class FieldErrors {
 public:
  void add(std::string field, Message message) {
    if (!error_) error_ = ApiError::validation(std::move(field), std::move(message));
    else error_->add_field(std::move(field), std::move(message));
  }
  bool empty() const noexcept { return !error_; }
  std::optional<ApiError> take() { return std::move(error_); }

 private:
  std::optional<ApiError> error_;
};

}  // namespace mediagen::orders

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

#include "mediagen/orders/text.hpp"
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
GenerativeParams read_generative_params(TaskType task_type, const nlohmann::json& task_data,
                                        FieldErrors& errors);

// The length each file will have: the asked duration, or the default (music 30 s; sfx the
// prompt's recipe, as the engine will choose it).
std::int64_t generative_duration_ms(TaskType task_type, std::string_view prompt, const GenerativeParams& params);

// Capacity of one chunk, in seconds: the service's longest file.
ChunkerOptions generative_chunker(TaskType task_type) noexcept;

// One chunk per variant, each the (trimmed) prompt, each billing the started seconds of its file.
ChunkPlan plan_generative(std::string_view prompt, std::int64_t duration_ms, int variants);

// orders.engine_request of such an order: {"engine", "task_type", "duration_ms", "seed"}.
std::string generative_engine_request(std::string_view engine, TaskType task_type, std::int64_t duration_ms,
                                      std::uint32_t seed);

}  // namespace mediagen::orders

// How an order's tokens are paid: subscription quota first, the rest from the balance at the
// model's price per 1,000 tokens, rounded up once per order (never per chunk, so splitting a
// text into chunks never costs more than the whole).
#include <cstdint>
#include <span>
#include <vector>

namespace mediagen::orders {

struct ChunkPrice {
  std::int64_t tokens = 0;
  std::int64_t quota_tokens = 0;
  std::int64_t payg_minor = 0;
};

struct OrderPrice {
  std::int64_t tokens = 0;
  std::int64_t from_quota = 0;
  std::int64_t from_payg = 0;
  std::int64_t minor = 0;  // price_units of the order
  std::vector<ChunkPrice> chunks;
};

// ceil(tokens * price_per_1k / 1000), without overflow for any realistic input.
std::int64_t money_for_tokens(std::int64_t tokens, std::int64_t price_per_1k_minor) noexcept;

// Chunks in order take quota first; chunk i's money is the growth of the rounded-up total, so
// the chunks' money sums exactly to the order's.
OrderPrice price_order(std::span<const std::int64_t> chunk_tokens, std::int64_t quota_available,
                       std::int64_t price_per_1k_minor);

}  // namespace mediagen::orders

// The body of POST /orders (spec 4.1.1), read leniently: every shape problem is collected and
// reported only after the template, quota, billing and maintenance checks, which is the
// spec's order ("request shape (422)" comes last).
#include <cstdint>
#include <optional>
#include <string>

#include <nlohmann/json.hpp>

#include "mediagen/engines/audio/output_format.hpp"
#include "mediagen/orders/limits.hpp"
#include "mediagen/webhooks/url_guard.hpp"
#include "mediagen/webhooks/webhooks.hpp"

namespace mediagen::orders {

// The longest input_text an order takes (code points), as for the preview.
inline constexpr std::size_t kMaxInputChars = 1'000'000;
// Prompts of template-less generative services are one chunk of at most this many characters.
inline constexpr std::size_t kPromptCapacity = 5000;

struct CreateRequest {
  std::optional<TemplateId> template_id;
  TaskType task_type = TaskType::tts;  // tts with a template; sfx, music, voice_search without
  std::string text;                        // input_text (tts) or the prompt (sfx, music)
  bool text_ok = false;                    // `text` passed its checks: the estimate can use it
  nlohmann::json config_override = nlohmann::json::object();
  nlohmann::json task_data = nlohmann::json::object();
  GenerationMode mode = GenerationMode::ordinary;
  TopupConfirmation topup;                 // confirm_payg_topup and quote_token
  GenerativeParams generative;             // sfx, music: task_data's duration, variants, seed
  std::int64_t top = 10;                   // voice_search: task_data.top
  // `webhook` and `webhook_events_filter`; the host is still to be resolved and checked when it
  // is a name that is not allowed outright (webhook_host).
  std::optional<webhooks::OrderWebhook> webhook;
  std::optional<webhooks::WebhookUrl> webhook_host;
  // `output_format` (ElevenLabs' names, engines/audio/output_format.hpp); nullopt: the engines' own
  // MP3 (64 kbit/s at the engine's rate). A voice search makes no audio and ignores it.
  std::optional<engines::OutputFormat> output_format;
  FieldErrors errors;
  std::optional<ApiError> refusal;  // a domain 422 (service_not_found; voice_search's file refusals)

  bool acceptable() const noexcept { return errors.empty() && !refusal; }
};

// A body that is not a JSON object cannot be read at all: that is the one immediate 422.
// `allow`: the hosts a webhook may use plain http and private addresses for (none when null).
Result<CreateRequest> read_create_request(const nlohmann::json& body, const webhooks::AllowList* allow = nullptr);

// The 422 that ends a request once everything before it passed: its domain refusal, else every
// field error, else `outdated` (a template that no longer passes the catalogue). Takes them out
// of `request`.
std::optional<ApiError> shape_refusal(CreateRequest& request, std::optional<ApiError> outdated);

// The optional {"text"} of an item retry or regenerate: absent or null is nullopt; otherwise a
// string of 1..`max` code points with something to speak.
Result<std::optional<std::string>> read_item_text(const nlohmann::json& body, std::size_t max);

}  // namespace mediagen::orders
