// The request readers of the chunk-preview routes (preview_request.hpp).
#include "preview_request.hpp"

#include "mediagen/orders/request.hpp"
#include "mediagen/core/uuid_id.hpp"
#include "mediagen/orders/preview.hpp"
#include "mediagen/orders/text.hpp"

namespace mediagen::orders {
namespace {

// Task types a preview plans; the five filter-only values of the enum cannot be ordered (spec 1).

Result<GenerationMode> parse_mode(const std::string& field, const nlohmann::json* value) {
  if (!value || value->is_null()) return GenerationMode::ordinary;
  if (value->is_string()) {
    if (auto m = generation_mode_from_string(value->get_ref<const std::string&>())) return *m;
  }
  return ApiError::validation(field, Message{"validation.in", {{"attribute", field}, {"values", "ordinary, paragraph"}}});
}

}  // namespace

Result<PreviewRequest> read_preview_post(const nlohmann::json& body) {
  if (!body.is_object()) return ApiError::validation("body", Message{"validation.object", {{"attribute", "body"}}});
  PreviewRequest req;
  FieldErrors errors;
  auto fail = [&](std::string field, Message m) { errors.add(std::move(field), std::move(m)); };
  auto field = [&](const char* name) -> const nlohmann::json* {
    auto it = body.find(name);
    return it == body.end() ? nullptr : &*it;
  };

  const auto* text = field("input_text");
  if (!text || text->is_null() || (text->is_string() && text->get_ref<const std::string&>().empty())) {
    fail("input_text", Message{"validation.required", {{"attribute", "input_text"}}});
  } else if (!text->is_string()) {
    fail("input_text", Message{"validation.string", {{"attribute", "input_text"}}});
  } else {
    req.input_text = text->get<std::string>();
    if (count_code_points(req.input_text) > kMaxPreviewChars) {
      fail("input_text", Message{"validation.max_string", {{"attribute", "input_text"}, {"max", std::to_string(kMaxPreviewChars)}}});
    }
  }

  if (const auto* type = field("task_type"); type && !type->is_null()) {
    const auto parsed = type->is_string() ? parse_task_type(type->get_ref<const std::string&>()) : std::nullopt;
    if (parsed && !is_orderable(*parsed)) return ApiError::refused(Reason::service_not_found);  // a filter only
    if (!parsed) {
      fail("task_type", Message{"validation.in", {{"attribute", "task_type"}, {"values", "tts, sfx, music, voice_search"}}});
    } else {
      req.task_type = *parsed;
    }
  }

  if (const auto* id = field("template_id"); id && !id->is_null()) {
    auto parsed = id->is_string() ? TemplateId::parse(id->get_ref<const std::string&>()) : std::nullopt;
    if (!parsed) fail("template_id", Message{"validation.uuid", {{"attribute", "template_id"}}});
    else req.template_id = std::move(*parsed);
  } else if (req.task_type == TaskType::tts) {
    fail("template_id", Message{"validation.required", {{"attribute", "template_id"}}});
  }

  // sfx and music: the prompt is one order's; task_data sizes the files as POST /orders does.
  if (is_single_shot(req.task_type)) {
    if (text && text->is_string() && count_code_points(req.input_text) > kPromptCapacity) {
      fail("input_text", Message{"validation.max_string", {{"attribute", "input_text"}, {"max", std::to_string(kPromptCapacity)}}});
    }
    if (const auto* data = field("task_data"); data && !data->is_null()) {
      if (!data->is_object()) fail("task_data", Message{"validation.object", {{"attribute", "task_data"}}});
      else req.generative = read_generative_params(req.task_type, *data, errors);
    }
  }

  auto mode = parse_mode("generation_mode", field("generation_mode"));
  if (!mode) fail("generation_mode", mode.error().fields.front().messages.front());
  else req.mode = *mode;

  if (const auto* hash = field("text_hash"); hash && !hash->is_null()) {
    // A client may send the hash it will poll with; a wrong one would make it poll in vain.
    if (!hash->is_string() || !is_text_hash(hash->get_ref<const std::string&>())) {
      fail("text_hash", Message{"validation.text_hash", {{"attribute", "text_hash"}}});
    } else if (text && text->is_string() && hash->get_ref<const std::string&>() != text_hash(req.input_text)) {
      fail("text_hash", Message{"validation.text_hash_mismatch", {{"attribute", "text_hash"}}});
    }
  }
  if (const auto* previous = field("previous_preview_id"); previous && !previous->is_null()) {
    if (!previous->is_string() || !is_text_hash(previous->get_ref<const std::string&>())) {
      fail("previous_preview_id", Message{"validation.preview_id", {{"attribute", "previous_preview_id"}}});
    }
  }
  if (auto error = errors.take()) return *error;
  return req;
}

Result<PreviewLookup> read_preview_lookup(const http::Query& query) {
  FieldErrors errors;
  auto fail = [&](std::string field, Message m) { errors.add(std::move(field), std::move(m)); };
  PreviewLookup out;
  auto template_id = query.get("template_id");
  if (!template_id || template_id->empty()) fail("template_id", Message{"validation.required", {{"attribute", "template_id"}}});
  else if (auto parsed = TemplateId::parse(*template_id)) out.template_id = std::move(*parsed);
  else fail("template_id", Message{"validation.uuid", {{"attribute", "template_id"}}});
  auto hash = query.get("text_hash");
  if (!hash || hash->empty()) fail("text_hash", Message{"validation.required", {{"attribute", "text_hash"}}});
  else if (!is_text_hash(*hash)) fail("text_hash", Message{"validation.text_hash", {{"attribute", "text_hash"}}});
  else out.text_hash = std::string(*hash);
  if (auto m = query.get("generation_mode"); m && !m->empty()) {
    if (auto parsed = generation_mode_from_string(*m)) out.mode = *parsed;
    else fail("generation_mode", Message{"validation.in", {{"attribute", "generation_mode"}, {"values", "ordinary, paragraph"}}});
  }
  if (auto error = errors.take()) return std::move(*error);
  return out;
}

Result<PreviewPageRequest> read_preview_page(std::string_view id, const http::Query& query) {
  auto page = http::integer_param(query, "page", {.fallback = 1, .min = 1, .max = 1'000'000});
  auto per_page = http::integer_param(query, "per_page",
                                      {.fallback = static_cast<std::int64_t>(kDefaultPreviewPerPage), .min = 1,
                                       .max = static_cast<std::int64_t>(kMaxPreviewPerPage)});
  if (auto error = http::combined_error({&page, &per_page})) return std::move(*error);
  if (!is_text_hash(id)) return ApiError::not_found();  // not an id we could have issued
  return PreviewPageRequest{std::string(id), static_cast<std::size_t>(*page), static_cast<std::size_t>(*per_page)};
}

}  // namespace mediagen::orders
