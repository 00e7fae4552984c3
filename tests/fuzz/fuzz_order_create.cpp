// POST /orders as the service reads it before any SQL (src/orders/create/order_create_service.cpp
// create_order): the Idempotency-Key, the body as the body stage reads it (JSON, or
// multipart/form-data read as its JSON body), read_create_request, the estimate's plan and the
// 422 that ends a request (shape_refusal). Input: line 1 Idempotency-Key (empty: none), line 2
// Content-Type (empty: application/json), the rest the body. Properties:
//   - nothing crashes, leaks or throws, whatever the bytes;
//   - an accepted Idempotency-Key is 1..255 printable ASCII, anything else a 422 on it;
//   - every refusal (415, 422, 422 service_not_found) has the spec's shape in both locales;
//   - a text that passed is valid UTF-8 within its limit with something to speak, and plans to
//     at least one chunk; sfx and music plan one chunk per variant billing the started seconds;
//   - an acceptable request names a template (uuid) for tts or an orderable type without one,
//     with task_data's numbers inside their documented ranges and config_override holding
//     only a valid generation_mode.
#include <string>

#include <nlohmann/json.hpp>

#include "fuzz_error_shape.hpp"
#include "fuzz_support.hpp"
#include "http/stages/json_body.hpp"
#include "mediagen/core/utf8.hpp"
#include "mediagen/core/uuid.hpp"
#include "mediagen/http/multipart.hpp"
#include "mediagen/orders/order.hpp"
#include "mediagen/orders/create.hpp"
#include "mediagen/orders/text.hpp"
#include "mediagen/orders/request.hpp"
#include "orders/routes/order_form.hpp"

namespace {

using namespace mediagen;

// The route's form limits, scaled down to the fuzzer's inputs.
http::MultipartLimits form_limits() {
  http::MultipartLimits limits;
  limits.max_file_bytes = 1024;
  limits.max_field_bytes = 2048;
  limits.max_total_bytes = 4096;
  limits.max_parts = 16;
  return limits;
}

// The body the service reads: a form's fields as JSON, or the JSON body; a refusal otherwise.
std::optional<nlohmann::json> read_body(std::string_view content_type, std::string_view body, std::size_t& files) {
  if (content_type.find("multipart/form-data") != std::string_view::npos) {
    auto boundary = http::multipart_boundary(content_type);
    if (!boundary) return std::nullopt;
    const auto outcome = http::parse_multipart(body, *boundary, form_limits());
    if (outcome.error) return std::nullopt;
    auto read = orders::read_order_form(outcome.form);
    if (!read) {
      fuzz::check_error_shape(read.error());
      return std::nullopt;
    }
    files = read->files.size();
    return std::move(read->body);
  }
  auto parsed = http::stages::parse_json_body(body, content_type.empty() ? "application/json" : content_type);
  if (!parsed) {
    fuzz::check_error_shape(parsed.error());
    return std::nullopt;
  }
  return std::move(*parsed);
}

void check_text(const orders::CreateRequest& r) {
  if (!r.text_ok) return;
  FUZZ_CHECK(is_valid_utf8(r.text));
  const std::size_t max = r.task_type == TaskType::tts ? orders::kMaxInputChars : orders::kPromptCapacity;
  FUZZ_CHECK(count_code_points(r.text) <= max);
  FUZZ_CHECK(!orders::trim_spaces(orders::strip_brackets(r.text)).empty());
  if (r.task_type == TaskType::tts) {
    const auto plan = orders::plan_chunks(r.text, {.capacity = 5000, .unit = CapacityUnit::chars, .mode = r.mode});
    FUZZ_CHECK(!plan.chunks.empty());
    return;
  }
  const std::int64_t ms = orders::generative_duration_ms(r.task_type, r.text, r.generative);
  const auto plan = orders::plan_generative(r.text, ms, r.generative.variants);
  FUZZ_CHECK(plan.chunks.size() == static_cast<std::size_t>(r.generative.variants));
  for (const auto& c : plan.chunks) FUZZ_CHECK(c.billable_length == static_cast<std::size_t>((ms + 999) / 1000));
}

void check_acceptable(const orders::CreateRequest& r) {
  FUZZ_CHECK(is_orderable(r.task_type));
  if (r.template_id) {
    FUZZ_CHECK(is_uuid(r.template_id->str()) && r.task_type == TaskType::tts && r.text_ok);
  } else {
    FUZZ_CHECK(r.task_type != TaskType::tts);
  }
  if (r.task_type == TaskType::sfx || r.task_type == TaskType::music) FUZZ_CHECK(r.text_ok);
  if (r.task_type == TaskType::sfx && r.generative.duration_ms) {
    FUZZ_CHECK(*r.generative.duration_ms >= orders::kSfxMinMs && *r.generative.duration_ms <= orders::kSfxMaxMs);
  }
  if (r.task_type == TaskType::music) {
    if (r.generative.duration_ms) {
      FUZZ_CHECK(*r.generative.duration_ms >= orders::kMusicMinMs && *r.generative.duration_ms <= orders::kMusicMaxMs);
    }
    FUZZ_CHECK(r.generative.variants >= 1 && r.generative.variants <= orders::kMaxMusicVariants);
  }
  FUZZ_CHECK(r.top >= 1 && r.top <= 50);
  FUZZ_CHECK(r.config_override.is_object() && r.task_data.is_object());
  for (const auto& [key, value] : r.config_override.items()) {
    FUZZ_CHECK(key == "generation_mode");
    FUZZ_CHECK(value.is_null() || (value.is_string() && orders::generation_mode_from_string(value.get<std::string>())));
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  fuzz::Lines lines{fuzz::as_text(data, size)};
  std::string_view key_header, content_type;
  if (!lines.next(key_header) || !lines.next(content_type)) return 0;
  const std::string_view body = lines.rest.data() ? lines.rest : std::string_view{};

  if (!key_header.empty()) {
    if (auto key = orders::valid_idempotency_key(key_header)) {
      FUZZ_CHECK(!key->empty() && key->size() <= 255);
      for (const char c : *key) FUZZ_CHECK(c >= 0x21 && c <= 0x7e);
    } else {
      // The handler's refusal for it.
      fuzz::check_error_shape(ApiError::validation(
          "Idempotency-Key", Message{"validation.idempotency_key", {{"attribute", "Idempotency-Key"}}}));
    }
  }

  std::size_t files = 0;
  auto json = read_body(content_type, body, files);
  if (!json) return 0;
  auto read = orders::read_create_request(*json);
  if (!read) {
    fuzz::check_error_shape(read.error());
    return 0;
  }
  orders::CreateRequest& r = *read;
  check_text(r);
  const bool acceptable = r.acceptable();
  if (acceptable) check_acceptable(r);
  auto shape = orders::shape_refusal(r, std::nullopt);
  FUZZ_CHECK(shape.has_value() != acceptable);
  if (shape) {
    FUZZ_CHECK(shape->status == 422);
    fuzz::check_error_shape(*shape);
  }
  (void)files;
  return 0;
}
