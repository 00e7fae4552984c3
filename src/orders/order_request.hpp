#pragma once
// The body of POST /orders (spec 4.1.1), read leniently: every shape problem is collected and
// reported only after the template, quota, billing and maintenance checks, which is the
// spec's order ("request shape (422)" comes last).
#include <cstdint>
#include <optional>
#include <string>

#include <nlohmann/json.hpp>

#include "field_errors.hpp"
#include "generative.hpp"
#include "mediagen/orders/chunker.hpp"
#include "mediagen/orders/topup_quote.hpp"

namespace mediagen::orders {

// The longest input_text an order takes (code points), as for the preview.
inline constexpr std::size_t kMaxInputChars = 1'000'000;
// Prompts of template-less generative services are one chunk of at most this many characters.
inline constexpr std::size_t kPromptCapacity = 5000;

struct CreateRequest {
  std::optional<std::string> template_id;  // a well-formed uuid
  std::string task_type = "tts";           // tts with a template; sfx, music, voice_search without
  std::string text;                        // input_text (tts) or the prompt (sfx, music)
  bool text_ok = false;                    // `text` passed its checks: the estimate can use it
  nlohmann::json config_override = nlohmann::json::object();
  nlohmann::json task_data = nlohmann::json::object();
  GenerationMode mode = GenerationMode::ordinary;
  TopupConfirmation topup;                 // confirm_payg_topup and quote_token
  GenerativeParams generative;             // sfx, music: task_data's duration, variants, seed
  std::int64_t top = 10;                   // voice_search: task_data.top
  FieldErrors errors;
  std::optional<ApiError> refusal;  // a domain 422 (service_not_found; voice_search's file refusals)

  bool acceptable() const noexcept { return errors.empty() && !refusal; }
};

// A body that is not a JSON object cannot be read at all: that is the one immediate 422.
Result<CreateRequest> read_create_request(const nlohmann::json& body);

// The 422 that ends a request once everything before it passed: its domain refusal, else every
// field error, else `outdated` (a template that no longer passes the catalogue). Takes them out
// of `request`.
std::optional<ApiError> shape_refusal(CreateRequest& request, std::optional<ApiError> outdated);

// The optional {"text"} of an item retry or regenerate: absent or null is nullopt; otherwise a
// string of 1..`max` code points with something to speak.
Result<std::optional<std::string>> read_item_text(const nlohmann::json& body, std::size_t max);

}  // namespace mediagen::orders
