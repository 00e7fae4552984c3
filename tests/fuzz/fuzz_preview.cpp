// The chunk-preview routes (spec 4.1.2) as far as they read the request (src/orders/
// preview_request.cpp) and turn it into a stored plan and its pages (src/orders/preview/preview.cpp).
// Input: line 1 the query string of GET /orders/chunks/preview and of GET .../{previewId}, line 2
// that previewId, line 3 the page size to render with, the rest the POST body as the body stage
// reads it. Properties:
//   - nothing crashes, leaks or throws;
//   - every refusal has the spec's shape in both locales: 422 naming fields, 422
//     service_not_found for a filter-only task type, 404 for an id no preview can have;
//   - an accepted POST has text of valid UTF-8 within its limit (5000 for sfx and music), a
//     plannable task type, a uuid template for tts and task_data inside the documented ranges;
//   - its plan renders to JSON whose pages hold at most per_page chunks, all of them together
//     exactly the plan's chunks; an accepted lookup has a uuid and a 64-hex text hash; an
//     accepted page is 1..1000000 with 1..500 chunks.
#include <string>

#include <nlohmann/json.hpp>

#include "fuzz_error_shape.hpp"
#include "fuzz_support.hpp"
#include "http/stages/json_body.hpp"
#include "mediagen/core/utf8.hpp"
#include "mediagen/core/uuid.hpp"
#include "mediagen/orders/order.hpp"
#include "mediagen/orders/preview.hpp"
#include "mediagen/orders/request.hpp"
#include "orders/preview/preview_request.hpp"

namespace {

using namespace mediagen;
using namespace mediagen::orders;
using json = nlohmann::json;

void check_post(const PreviewRequest& r, std::size_t per_page) {
  FUZZ_CHECK(!r.input_text.empty() && is_valid_utf8(r.input_text));
  const bool single = is_single_shot(r.task_type);
  FUZZ_CHECK(count_code_points(r.input_text) <= (single ? kPromptCapacity : kMaxPreviewChars));
  FUZZ_CHECK(is_orderable(r.task_type));
  if (r.task_type == TaskType::tts) FUZZ_CHECK(r.template_id && is_uuid(r.template_id->str()));
  if (r.template_id) FUZZ_CHECK(is_uuid(r.template_id->str()));
  FUZZ_CHECK(r.generative.variants >= 1 && r.generative.variants <= kMaxMusicVariants);

  // The plan a template or the task type would give (preview_settings.cpp), rendered and paged.
  PreviewSettings s;
  s.task_type = r.task_type;
  s.template_id = r.template_id ? r.template_id->str() : std::string();
  s.price_per_1k_minor = 150;
  if (single) {
    s.chunker = generative_chunker(r.task_type);
    s.duration_ms = generative_duration_ms(r.task_type, r.input_text, r.generative);
    s.variants = r.generative.variants;
  } else {
    s.chunker = {.capacity = 300, .unit = CapacityUnit::chars, .mode = r.mode};
  }
  const ChunkPlan plan = plan_preview(r.input_text, s);
  const std::string id = preview_id(text_hash(r.input_text), s);
  FUZZ_CHECK(is_text_hash(id));
  const std::string doc = render_plan(plan, s, id);
  FUZZ_CHECK(!is_processing(doc));
  std::size_t seen = 0;
  for (std::size_t page = 1; page <= plan.chunks.size() / per_page + 1; ++page) {
    auto text = page_of(doc, page, per_page);
    FUZZ_CHECK(text.has_value());
    const auto body = json::parse(*text, nullptr, false);
    FUZZ_CHECK(body.is_object() && body["chunks"].is_array());
    FUZZ_CHECK(body["chunks"].size() <= per_page);
    FUZZ_CHECK(body["page"]["total"] == plan.chunks.size());
    for (const auto& c : body["chunks"]) FUZZ_CHECK(c["chunk_index"] == seen++);
  }
  FUZZ_CHECK(seen == plan.chunks.size());
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  fuzz::Lines lines{fuzz::as_text(data, size)};
  std::string_view query_text, id, page_size;
  if (!lines.next(query_text) || !lines.next(id) || !lines.next(page_size)) return 0;
  const std::string_view body_text = lines.rest.data() ? lines.rest : std::string_view{};
  const auto query = http::Query::parse(query_text);

  if (auto lookup = read_preview_lookup(query)) {
    FUZZ_CHECK(lookup->template_id && is_uuid(lookup->template_id->str()) && is_text_hash(lookup->text_hash));
  } else {
    FUZZ_CHECK(lookup.error().status == 422);
    fuzz::check_error_shape(lookup.error());
  }
  if (auto page = read_preview_page(id, query)) {
    FUZZ_CHECK(page->id == id && is_text_hash(page->id));
    FUZZ_CHECK(page->page >= 1 && page->page <= 1'000'000);
    FUZZ_CHECK(page->per_page >= 1 && page->per_page <= kMaxPreviewPerPage);
  } else {
    FUZZ_CHECK(page.error().status == 422 || page.error().status == 404);
    fuzz::check_error_shape(page.error());
  }

  auto body = http::stages::parse_json_body(body_text, "application/json");
  if (!body) {
    fuzz::check_error_shape(body.error());
    return 0;
  }
  auto post = read_preview_post(*body);
  if (!post) {
    FUZZ_CHECK(post.error().status == 422);
    fuzz::check_error_shape(post.error());
    return 0;
  }
  check_post(*post, 1 + page_size.size() % 7);
  return 0;
}
