#include "clone_form.hpp"

#include <nlohmann/json.hpp>

#include "mediagen/core/utf8.hpp"
#include "mediagen/engines/codec.hpp"
#include "mediagen/voices/clones.hpp"

namespace mediagen::voices {
namespace {

constexpr std::string_view kFiles = "files[]";

ApiError name_error(std::string key, std::vector<std::pair<std::string, std::string>> params = {}) {
  params.emplace_back("attribute", "name");
  return ApiError::validation("name", Message{std::move(key), std::move(params)});
}

bool is_control(char32_t c) { return c < 0x20 || (c >= 0x7F && c <= 0x9F); }

std::string_view trim(std::string_view s) {
  const auto space = [](char c) { return c == ' ' || c == '\t' || c == '\r' || c == '\n'; };
  while (!s.empty() && space(s.front())) s.remove_prefix(1);
  while (!s.empty() && space(s.back())) s.remove_suffix(1);
  return s;
}

Result<std::string> read_name(std::optional<std::string_view> raw, bool is_string) {
  if (!raw) return name_error("validation.required");
  if (!is_string) return name_error("validation.string");
  if (!is_valid_utf8(*raw)) return name_error("validation.clean_text");
  const std::string_view name = trim(*raw);
  if (name.empty()) return name_error("validation.required");
  for (std::string_view rest = name; !rest.empty();) {
    const auto cp = decode_utf8(rest);
    if (!cp || is_control(cp->value)) return name_error("validation.clean_text");
    rest.remove_prefix(cp->length);
  }
  if (count_code_points(name) > kMaxCloneNameChars) {
    return name_error("validation.max_string", {{"max", std::to_string(kMaxCloneNameChars)}});
  }
  return std::string(name);
}

Result<std::string> name_of(const http::MultipartForm* form, const nlohmann::json* json) {
  if (form) {
    const auto* part = form->first("name");
    if (!part) return read_name(std::nullopt, true);
    return read_name(std::string_view(part->data), !part->is_file());
  }
  if (json && json->is_object()) {
    auto it = json->find("name");
    if (it == json->end() || it->is_null()) return read_name(std::nullopt, true);
    if (!it->is_string()) return read_name(std::string_view(), false);
    return read_name(it->get_ref<const std::string&>(), true);
  }
  return read_name(std::nullopt, true);
}

}  // namespace

Result<CloneForm> read_clone_form(const http::MultipartForm* form, const nlohmann::json* json) {
  auto name = name_of(form, json);
  if (!name) return name.error();
  CloneForm out{.name = std::move(*name)};
  if (form) out.files = form->all(kFiles);
  if (out.files.empty()) return ApiError::refused(Reason::source_file_required);
  if (out.files.size() > kMaxCloneSamples) {
    return ApiError::validation(
        "files", Message{"validation.max", {{"attribute", "files"}, {"max", std::to_string(kMaxCloneSamples)}}});
  }
  for (const auto* f : out.files) {
    if (f->data.empty()) return ApiError::refused(Reason::source_file_required);
  }
  for (const auto* f : out.files) {
    if (!engines::is_accepted_mime_type(engines::sniff_mime_type(f->data))) {
      return ApiError::refused(Reason::source_file_unsupported);
    }
    out.bytes += static_cast<std::int64_t>(f->data.size());
  }
  return out;
}

}  // namespace mediagen::voices
