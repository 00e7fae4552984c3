#include "mediagen/orders/request.hpp"

#include <algorithm>

#include "mediagen/core/idempotency_key.hpp"
#include "mediagen/core/uuid_id.hpp"
#include "mediagen/orders/order.hpp"
#include "mediagen/orders/text.hpp"

namespace mediagen::orders {
namespace {

using nlohmann::json;

Message msg(const char* key, std::string attribute) { return Message{key, {{"attribute", std::move(attribute)}}}; }

void read_text(CreateRequest& r, const json* value, const std::string& name, std::size_t max_chars) {
  if (!value || (value->is_string() && value->get_ref<const std::string&>().empty())) {
    r.errors.add(name, msg("validation.required", name));
    return;
  }
  if (!value->is_string()) {
    r.errors.add(name, msg("validation.string", name));
    return;
  }
  r.text = value->get<std::string>();
  if (count_code_points(r.text) > max_chars) {
    r.errors.add(name, Message{"validation.max_string", {{"attribute", name}, {"max", std::to_string(max_chars)}}});
  } else if (trim_spaces(strip_brackets(r.text)).empty()) {
    r.errors.add(name, msg("validation.nothing_to_speak", name));
  } else {
    r.text_ok = true;
  }
}

void read_task_data(CreateRequest& r) {
  if (r.task_type == TaskType::sfx) {
    read_text(r, present_field(r.task_data, "text"), "task_data.text", kPromptCapacity);
    r.generative = read_generative_params(r.task_type, r.task_data, r.errors);
  } else if (r.task_type == TaskType::music) {
    read_text(r, present_field(r.task_data, "prompt"), "task_data.prompt", kPromptCapacity);
    r.generative = read_generative_params(r.task_type, r.task_data, r.errors);
  } else if (r.task_type == TaskType::voice_search) {
    // The audio comes as multipart input_files[] and is judged by the caller (voice_search_order.hpp).
    r.top = read_task_integer(r.task_data, "top", 1, 50, r.errors).value_or(10);
  }
}

void read_config_override(CreateRequest& r, const json* value) {
  if (!value) return;
  if (!value->is_object()) {
    r.errors.add("config_override", msg("validation.object", "config_override"));
    return;
  }
  r.config_override = *value;
  for (const auto& [key, v] : value->items()) {
    const std::string name = "config_override." + key;
    if (key != "generation_mode") {
      r.errors.add(name, Message{"validation.in", {{"attribute", "config_override"}, {"values", "generation_mode"}}});
      continue;
    }
    if (v.is_null()) continue;
    auto mode = v.is_string() ? generation_mode_from_string(v.get_ref<const std::string&>()) : std::nullopt;
    if (!mode) {
      r.errors.add(name, Message{"validation.in", {{"attribute", name}, {"values", "ordinary, paragraph"}}});
    } else {
      r.mode = *mode;
    }
  }
}

// `webhook` (an absolute URL deliveries may go to) and `webhook_events_filter` (a non-empty
// subset of the order events; default order.updated). A filter without a webhook is checked and
// has nothing to filter.
void read_webhook(CreateRequest& r, const json& body, const webhooks::AllowList& allow) {
  std::vector<std::string> events;
  if (const json* filter = present_field(body, "webhook_events_filter")) {
    std::string values;
    for (auto t : webhooks::kOrderEventTypes) values += (values.empty() ? "" : ", ") + std::string(t);
    bool ok = filter->is_array() && !filter->empty();
    for (std::size_t i = 0; ok && i < filter->size(); ++i) {
      const json& v = (*filter)[i];
      const auto known = std::find_if(webhooks::kOrderEventTypes.begin(), webhooks::kOrderEventTypes.end(),
                                      [&](std::string_view t) { return v.is_string() && v.get_ref<const std::string&>() == t; });
      ok = known != webhooks::kOrderEventTypes.end();
      if (ok && std::find(events.begin(), events.end(), *known) == events.end()) events.emplace_back(*known);
    }
    if (!ok) {
      r.errors.add("webhook_events_filter", Message{"validation.webhook_events_filter",
                                                    {{"attribute", "webhook_events_filter"}, {"values", values}}});
      events.clear();
    }
  }
  const json* url = present_field(body, "webhook");
  if (!url) return;
  if (!url->is_string()) {
    r.errors.add("webhook", msg("validation.string", "webhook"));
    return;
  }
  auto checked = webhooks::check_url(url->get_ref<const std::string&>(), allow);
  if (!checked.url) {
    if (checked.refusal == webhooks::UrlRefusal::address) {
      r.errors.add("webhook", msg("validation.webhook_address", "webhook"));
    } else {
      r.errors.add("webhook", Message{"validation.webhook_url",
                                      {{"attribute", "webhook"}, {"max", std::to_string(webhooks::kMaxUrlBytes)}}});
    }
    return;
  }
  if (events.empty()) events.emplace_back(webhooks::kDefaultOrderEvent);
  r.webhook = webhooks::OrderWebhook{.url = checked.url->url, .events = std::move(events)};
  if (!checked.url->allowed && !checked.url->literal_ip) r.webhook_host = std::move(*checked.url);
}

void read_output_format(CreateRequest& r, const json* value) {
  if (!value) return;
  if (value->is_string()) {
    if (auto format = engines::parse_output_format(value->get_ref<const std::string&>())) {
      r.output_format = *format;
      return;
    }
  }
  std::string names;
  for (auto n : engines::output_format_names()) names += (names.empty() ? "" : ", ") + std::string(n);
  r.errors.add("output_format", Message{"validation.in", {{"attribute", "output_format"}, {"values", names}}});
}

}  // namespace

Result<CreateRequest> read_create_request(const json& body, const webhooks::AllowList* allow) {
  if (!body.is_object()) return ApiError::validation("body", msg("validation.object", "body"));
  CreateRequest r;

  const json* template_id = present_field(body, "template_id");
  const json* task_type = present_field(body, "task_type");
  if (template_id) {
    auto id = template_id->is_string() ? TemplateId::parse(template_id->get_ref<const std::string&>()) : std::nullopt;
    if (!id) r.errors.add("template_id", msg("validation.uuid", "template_id"));
    else r.template_id = std::move(*id);
  }
  if (task_type) {
    const auto type = task_type->is_string() ? parse_task_type(task_type->get_ref<const std::string&>()) : std::nullopt;
    if (type && !is_orderable(*type)) {
      r.refusal = ApiError::refused(Reason::service_not_found);
    } else if (!type) {
      r.errors.add("task_type", Message{"validation.in", {{"attribute", "task_type"}, {"values", "sfx, music, voice_search"}}});
    } else if (template_id && *type != TaskType::tts) {
      // A template fixes the service: only its own kind may be named beside it.
      r.errors.add("task_type", Message{"validation.in", {{"attribute", "task_type"}, {"values", "tts"}}});
    } else if (!template_id && *type == TaskType::tts) {
      r.errors.add("template_id", Message{"validation.required", {{"attribute", "template_id"}}});
    } else {
      r.task_type = *type;
    }
  } else if (!template_id) {
    r.errors.add("template_id", Message{"validation.required_without", {{"attribute", "template_id"}, {"other", "task_type"}}});
    r.errors.add("task_type", Message{"validation.required_without", {{"attribute", "task_type"}, {"other", "template_id"}}});
  }

  if (const json* data = present_field(body, "task_data")) {
    if (!data->is_object()) r.errors.add("task_data", msg("validation.object", "task_data"));
    else r.task_data = *data;
  }
  if (template_id) {
    read_text(r, present_field(body, "input_text"), "input_text", kMaxInputChars);
  } else if (task_type && r.task_type != TaskType::tts && !r.refusal) {
    read_task_data(r);
  }
  read_config_override(r, present_field(body, "config_override"));

  // Used only in the explicit-confirmation mode, ignored in normal mode (spec 4.1), typed in both.
  if (const json* v = present_field(body, "confirm_payg_topup")) {
    if (!v->is_boolean()) r.errors.add("confirm_payg_topup", msg("validation.boolean", "confirm_payg_topup"));
    else r.topup.confirmed = v->get<bool>();
  }
  if (const json* v = present_field(body, "quote_token")) {
    if (!v->is_string()) r.errors.add("quote_token", msg("validation.string", "quote_token"));
    else r.topup.quote_token = v->get<std::string>();
  }
  read_webhook(r, body, allow ? *allow : webhooks::AllowList{});
  read_output_format(r, present_field(body, "output_format"));
  return r;
}

std::optional<ApiError> shape_refusal(CreateRequest& request, std::optional<ApiError> outdated) {
  if (request.acceptable() && !outdated) return std::nullopt;
  if (request.refusal) return std::move(request.refusal);
  if (auto e = request.errors.take()) return std::move(*e);
  return outdated;
}

Result<std::optional<std::string>> read_item_text(const json& body, std::size_t max) {
  if (!body.is_object()) return ApiError::validation("body", msg("validation.object", "body"));
  auto it = body.find("text");
  if (it == body.end() || it->is_null()) return std::optional<std::string>{};
  if (!it->is_string()) return ApiError::validation("text", msg("validation.string", "text"));
  const auto& text = it->get_ref<const std::string&>();
  if (text.empty()) return ApiError::validation("text", msg("validation.required", "text"));
  if (count_code_points(text) > max) {
    return ApiError::validation("text", Message{"validation.max_string", {{"attribute", "text"}, {"max", std::to_string(max)}}});
  }
  if (trim_spaces(strip_brackets(text)).empty()) {
    return ApiError::validation("text", msg("validation.nothing_to_speak", "text"));
  }
  return std::optional<std::string>{text};
}

}  // namespace mediagen::orders
