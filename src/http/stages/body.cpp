#include "mediagen/core/ascii.hpp"
#include "stages.hpp"

namespace mediagen::http::stages {

namespace {

// A key's uploads wait for one of them to end, which the server cannot foresee: a short wait.
constexpr std::int64_t kUploadsRetryAfterSeconds = 5;

// 429 in the spec's per-key family (8.1), so a client that honours retry_after already does the
// right thing; the message and `uploads_per_key` tell it is the upload cap, not a request window.
ApiError too_many_uploads(std::size_t per_key) {
  ApiError e = ApiError::rate_limited(kUploadsRetryAfterSeconds);
  e.message = Message{"errors.too_many_uploads"};
  e.with("uploads_per_key", static_cast<std::int64_t>(per_key));
  return e;
}

// 408 with the plain envelope, and the connection closed: the rest of the body is not wanted.
ApiError upload_too_slow() {
  ApiError e;
  e.status = 408;
  e.shape = ErrorShape::plain;
  e.message = Message{"errors.upload_too_slow"};
  e.close_connection = true;
  return e;
}

// 408 for a body that did not arrive within the read timeout, the connection closed like the
// upload's: what did arrive is not a request the server can answer.
ApiError body_too_slow() {
  ApiError e = upload_too_slow();
  e.message = Message{"errors.request_timeout"};
  return e;
}

// The parts of an upload, read as they arrive: a limit the parser meets stops the reading there,
// and so do the budget and the pace.
awaitable<Result<void>> read_form(RequestContext& ctx, Exchange& exchange, std::string boundary, BodyTarget& target,
                                  Uploads& uploads) {
  const Route& route = *ctx.route;
  if (ctx.principal) {
    target.slot = uploads.slots.enter(ctx.principal->key_id);
    if (!target.slot) co_return too_many_uploads(uploads.slots.per_key());
  }
  target.lease.emplace(uploads.budget.lease());
  UploadPace pace(uploads.pace, uploads.clock);
  MultipartParser parser(std::move(boundary), route.multipart);
  enum class Cut { none, budget, too_slow } cut = Cut::none;
  const BodyStatus status = co_await exchange.read_body_pieces(
      route.body_limit,
      [&](std::string_view piece) {
        if (!target.lease->grow(piece.size())) {
          cut = Cut::budget;
          return false;
        }
        pace.arrived(piece.size());
        if (pace.too_slow()) {
          cut = Cut::too_slow;
          return false;
        }
        return !parser.feed(piece);
      },
      [&] { return pace.patience(); });
  if (cut == Cut::budget) {
    co_return ApiError::unavailable("upload budget spent: " + std::to_string(uploads.budget.in_use()) + " bytes in use");
  }
  if (cut == Cut::too_slow || status == BodyStatus::timed_out) co_return upload_too_slow();
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

awaitable<Result<void>> read_body(RequestContext& ctx, Exchange& exchange, BodyTarget& target, Uploads& uploads) {
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
  if (status == BodyStatus::timed_out) co_return body_too_slow();
  if (status == BodyStatus::failed) co_return ApiError::bad_request();
  if (!route.json_body) co_return Result<void>{};
  auto parsed = parse_json_body(ctx.request.body(), ctx.request.header("Content-Type"));
  if (!parsed) co_return std::move(parsed.error());
  target.json.emplace(std::move(*parsed));
  ctx.json = &*target.json;
  co_return Result<void>{};
}

}  // namespace mediagen::http::stages
