#pragma once
// What the three chunk-preview routes read from a request (spec 4.1.2), without I/O: the POST
// body, the query of GET /orders/chunks/preview and the page of GET .../preview/{previewId}.
// Every refusal is a 422 naming every bad field, except a filter-only task type (422
// service_not_found) and an id that no preview can have (404).
#include <cstddef>
#include <optional>
#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

#include "mediagen/orders/request.hpp"
#include "mediagen/core/api_error.hpp"
#include "mediagen/http/query.hpp"
#include "mediagen/orders/text.hpp"

namespace mediagen::orders {

// The longest text a preview takes (code points).
inline constexpr std::size_t kMaxPreviewChars = 1'000'000;

struct PreviewRequest {
  std::string input_text;
  std::optional<TemplateId> template_id;
  TaskType task_type = TaskType::tts;
  GenerationMode mode = GenerationMode::ordinary;
  GenerativeParams generative;  // sfx, music: task_data's duration_seconds and n_variants
};

// POST /orders/chunks/preview.
Result<PreviewRequest> read_preview_post(const nlohmann::json& body);

// GET /orders/chunks/preview?template_id=&text_hash=&generation_mode=
struct PreviewLookup {
  std::optional<TemplateId> template_id;  // set when the lookup is valid
  std::string text_hash;    // 64 lowercase hex
  GenerationMode mode = GenerationMode::ordinary;
};
Result<PreviewLookup> read_preview_lookup(const http::Query& query);

// GET /orders/chunks/preview/{previewId}?page=&per_page=
struct PreviewPageRequest {
  std::string id;
  std::size_t page = 1;
  std::size_t per_page = 0;
};
Result<PreviewPageRequest> read_preview_page(std::string_view id, const http::Query& query);

}  // namespace mediagen::orders
