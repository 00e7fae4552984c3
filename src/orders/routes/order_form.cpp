#include "order_form.hpp"

#include <algorithm>
#include <array>
#include <optional>
#include <span>
#include <utility>

#include "mediagen/orders/request.hpp"
#include "mediagen/core/utf8.hpp"

namespace mediagen::orders {
namespace {

using nlohmann::json;

constexpr std::array<std::string_view, 4> kStringFields{"task_type", "template_id", "input_text", "quote_token"};
constexpr std::array<std::string_view, 2> kObjectFields{"task_data", "config_override"};

Message msg(const char* key, std::string_view attribute) {
  return Message{key, {{"attribute", std::string(attribute)}}};
}

// "5" -> 5, "0.5" -> 0.5, "true" -> true; anything else stays the text it is.
json scalar_of(std::string_view text) {
  auto parsed = json::parse(text, nullptr, false);
  if (parsed.is_number() || parsed.is_boolean()) return parsed;
  return json(std::string(text));
}

// "task_data[top]" -> {"task_data", "top"}; nullopt for any other shape.
std::optional<std::pair<std::string_view, std::string_view>> member_name(std::string_view name) {
  const auto open = name.find('[');
  if (open == std::string_view::npos || name.size() < open + 3 || name.back() != ']') return std::nullopt;
  const auto member = name.substr(open + 1, name.size() - open - 2);
  if (member.find_first_of("[]") != std::string_view::npos) return std::nullopt;
  return std::pair{name.substr(0, open), member};
}

bool is_one_of(std::string_view name, std::span<const std::string_view> names) {
  return std::find(names.begin(), names.end(), name) != names.end();
}

void read_object(OrderForm& out, FieldErrors& errors, std::string_view name, std::string_view text) {
  auto parsed = json::parse(text, nullptr, false);
  if (!parsed.is_object()) {
    errors.add(std::string(name), msg("validation.object", name));
    return;
  }
  out.body[std::string(name)] = std::move(parsed);
}

}  // namespace

Result<OrderForm> read_order_form(const http::MultipartForm& form) {
  OrderForm out;
  FieldErrors errors;
  json members = json::object();  // task_data[KEY] and config_override[KEY], applied last
  for (const auto& part : form.parts) {
    const std::string_view name = part.name;
    if (name == "input_files[]" || name == "input_files") {
      out.files.emplace_back(part.data);
      continue;
    }
    const auto member = member_name(name);
    const bool plain = is_one_of(name, kStringFields) || name == "confirm_payg_topup";
    const bool object = is_one_of(name, kObjectFields);
    const bool in_object = member && is_one_of(member->first, kObjectFields);
    if (!plain && !object && !in_object) continue;  // unknown: ignored
    // The name too: task_data[KEY] makes KEY a JSON member name.
    if (!is_valid_utf8(part.data) || !is_valid_utf8(name)) {
      const std::string shown = http::display_text(name, 64);
      errors.add(shown, msg("validation.string", shown));
    } else if (plain) {
      if (out.body.contains(part.name)) continue;
      auto& slot = out.body[part.name];
      if (name != "confirm_payg_topup") slot = part.data;
      else if (part.data == "true" || part.data == "1") slot = true;
      else if (part.data == "false" || part.data == "0") slot = false;
      else slot = part.data;
    } else if (object) {
      if (!out.body.contains(part.name)) read_object(out, errors, name, part.data);
    } else {
      auto& values = members[std::string(member->first)];
      if (!values.contains(member->second)) values[std::string(member->second)] = scalar_of(part.data);
    }
  }
  for (auto& [object, values] : members.items()) {
    auto& slot = out.body[object];
    if (!slot.is_object()) slot = json::object();  // a member beside an unreadable object (already an error)
    for (auto& [key, value] : values.items()) slot[key] = std::move(value);
  }
  if (auto e = errors.take()) return std::move(*e);
  return out;
}

}  // namespace mediagen::orders
