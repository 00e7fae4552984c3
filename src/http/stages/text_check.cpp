#include "mediagen/core/clean_json.hpp"
#include "mediagen/core/utf8.hpp"
#include "mediagen/http/query.hpp"
#include "stages.hpp"

namespace mediagen::http::stages {

namespace {

// Paths and query parameters are one line: they have no use for tabs and line breaks either.
bool is_clean_line(std::string_view text) {
  return is_clean_text(text) && text.find_first_of("\t\n\r") == std::string_view::npos;
}

ApiError not_text(std::string field) {
  Message m{"validation.clean_text", {{"attribute", field}}};
  return ApiError::validation(std::move(field), std::move(m));
}

}  // namespace

std::optional<ApiError> check_path_text(const RequestContext& ctx) {
  if (is_clean_line(ctx.path)) return std::nullopt;
  return ApiError::path_not_text();
}

std::optional<ApiError> check_query_text(const RequestContext& ctx) {
  if (ctx.query.empty()) return std::nullopt;
  const Query query = Query::parse(ctx.query);
  for (const auto& p : query.items()) {
    if (!is_clean_line(p.name)) return not_text("query");
    if (!is_clean_line(p.value)) return not_text(p.name);
  }
  return std::nullopt;
}

}  // namespace mediagen::http::stages
