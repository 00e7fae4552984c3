#include "mediagen/core/ascii.hpp"
#include "stages.hpp"

namespace mediagen::http::stages {

namespace {

// The parts of an upload, read as they arrive: a limit the parser meets stops the reading there.
awaitable<Result<void>> read_form(RequestContext& ctx, Exchange& exchange, std::string boundary, BodyTarget& target,
                                  UploadBudget& uploads) {
  const Route& route = *ctx.route;
  const std::size_t size = std::min<std::uint64_t>(exchange.content_length().value_or(route.body_limit), route.body_limit);
  target.lease = uploads.take(size);
  if (!target.lease) co_return ApiError::unavailable("upload budget spent: " + std::to_string(uploads.in_use()) + " bytes in use");
  MultipartParser parser(std::move(boundary), route.multipart);
  const BodyStatus status =
      co_await exchange.read_body_pieces(route.body_limit, [&](std::string_view piece) { return !parser.feed(piece); });
  if (parser.error()) co_return to_api_error(*parser.error());
  if (status == BodyStatus::too_large) co_return ApiError::payload_too_large();
  if (status != BodyStatus::ok) co_return ApiError::bad_request();
  if (const auto& refusal = parser.finish()) co_return to_api_error(*refusal);
  target.form.emplace(parser.take_form());
  ctx.form = &*target.form;
  co_return Result<void>{};
}

bool is_form_data(std::string_view content_type) {
  const auto semi = content_type.find(';');
  std::string_view type = content_type.substr(0, semi);
  while (!type.empty() && (type.back() == ' ' || type.back() == '\t')) type.remove_suffix(1);
  while (!type.empty() && (type.front() == ' ' || type.front() == '\t')) type.remove_prefix(1);
  return iequals_ascii(type, "multipart/form-data");
}

}  // namespace

awaitable<Result<void>> read_body(RequestContext& ctx, Exchange& exchange, BodyTarget& target, UploadBudget& uploads) {
  const Route& route = *ctx.route;
  if (route.multipart_body) {
    if (auto type = ctx.request.header("Content-Type"); type && is_form_data(*type)) {
      auto boundary = multipart_boundary(*type);
      if (!boundary) co_return to_api_error(MultipartError{MultipartErrorKind::not_multipart, "no usable boundary"});
      co_return co_await read_form(ctx, exchange, std::move(*boundary), target, uploads);
    }
  }
  const std::size_t limit = route.multipart_body && route.json_body_limit ? route.json_body_limit : route.body_limit;
  auto status = co_await exchange.read_body(limit);
  if (status == BodyStatus::too_large) co_return ApiError::payload_too_large();
  if (status == BodyStatus::failed) co_return ApiError::bad_request();
  if (!route.json_body) co_return Result<void>{};
  auto parsed = parse_json_body(ctx.request.body(), ctx.request.header("Content-Type"));
  if (!parsed) co_return std::move(parsed.error());
  target.json.emplace(std::move(*parsed));
  ctx.json = &*target.json;
  co_return Result<void>{};
}

}  // namespace mediagen::http::stages
