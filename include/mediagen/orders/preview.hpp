#pragma once
// Chunk preview (spec 4.1.2): the plan of a text for a template, free, cached per key owner.
//   preview_id = sha256 hex of (sha256 hex of the raw input_text, task type, template id and the
//   settings that decide the plan, generation mode): deterministic, and computable from a
//   text_hash alone, which is what GET /orders/chunks/preview?text_hash= needs.
//   The whole plan is stored once in Redis (packed and bounded: preview_store.hpp); pages are
//   cut from it on read.
#include "mediagen/core/task_type.hpp"
#include <chrono>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "mediagen/orders/text.hpp"

namespace mediagen::orders {

// Longer tts texts are planned in the background: POST answers 202 "processing".
inline constexpr std::size_t kSyncPreviewChars = 50000;
inline constexpr std::chrono::seconds kPreviewTtl{1800};
inline constexpr std::size_t kDefaultPreviewPerPage = 100;
inline constexpr std::size_t kMaxPreviewPerPage = 500;

// What a plan depends on besides the text: from the template (tts) or the task type.
struct PreviewSettings {
  TaskType task_type = TaskType::tts;
  std::string template_id;      // empty without a template
  std::string service_key;
  std::string model_id;
  std::string fingerprint;      // the template settings that decide the plan, canonical JSON
  ChunkerOptions chunker;
  std::int64_t price_per_1k_minor = 0;  // per 1,000 tokens
  // sfx and music (chunker.unit seconds): each file's length and how many files; one chunk each.
  std::int64_t duration_ms = 0;
  int variants = 1;
  std::string currency_code = "USD";
  int currency_precision = 2;
};

std::string text_hash(std::string_view raw_text);  // lowercase sha256 hex
bool is_text_hash(std::string_view value);         // 64 lowercase hex characters
std::string preview_id(std::string_view text_hash_hex, const PreviewSettings& settings);

// The plan of a preview's text: the chunker's for speech, one chunk per file for sfx and music.
ChunkPlan plan_preview(std::string_view raw_text, const PreviewSettings& settings);

// The stored document: {"status":"ready","preview_id","summary":{...},"chunks":[...]}.
std::string render_plan(const ChunkPlan& plan, const PreviewSettings& settings, std::string_view id);
// The stored document while the plan is being made: {"status":"processing","preview_id"}.
std::string render_processing(std::string_view id);

// The response data for one page of a stored document: {status, preview_id, summary, chunks,
// page:{current_page, per_page, total, has_more}}; a page past the end has no chunks.
// nullopt when the stored document is unreadable.
std::optional<std::string> page_of(std::string_view stored, std::size_t page, std::size_t per_page);
bool is_processing(std::string_view stored);

}  // namespace mediagen::orders

#include <functional>
#include <string>
#include <string_view>

#include "mediagen/core/ids.hpp"

#include "mediagen/http/routes_fwd.hpp"

namespace mediagen::db {
struct Resources;
}

namespace mediagen::orders {

struct PreviewOptions {
  std::string redis_prefix;
  // Called (on a blocking-pool thread, with its connections) when a background preview is ready:
  // the realtime `ready` event on private-chunks.preview.{userId} and the preview.ready webhook
  // messages are sent from here.
  std::function<void(db::Resources& r, UserId user, std::string_view preview_id)> on_ready;
};

// POST /orders/chunks/preview, GET /orders/chunks/preview, GET /orders/chunks/preview/{previewId}.
void register_preview_routes(http::Router& router, db::BlockingPool& pool, PreviewOptions options);

}  // namespace mediagen::orders
