// HTTP of the OpenAI-compatible surface: read the request on the I/O thread, resolve and create
// the order on the blocking pool, then answer with its audio as the chunks finish.
#include <nlohmann/json.hpp>

#include "compat_service.hpp"
#include "mediagen/compat/routes.hpp"
#include "mediagen/core/crypto.hpp"
#include "mediagen/core/log.hpp"
#include "mediagen/db/blocking_pool.hpp"
#include "mediagen/http/query.hpp"
#include "mediagen/http/router.hpp"
#include "openai_errors.hpp"
#include "speech_stream.hpp"

namespace mediagen::compat {
namespace {

namespace asio = boost::asio;

// input may hold kMaxInputChars code points of up to 4 bytes, instructions as many.
constexpr std::size_t kSpeechBodyLimit = 8 * kMaxInputChars + 64 * 1024;

// The pipeline's renderer for these routes (http::Route::render_error).
http::Response openai_error_response(const ApiError& error, Locale locale) {
  OpenAiError rendered = openai_error(error, locale);
  http::Response r;
  r.status = rendered.status;
  r.headers = std::move(rendered.headers);
  r.body = std::move(rendered.body);
  r.close = error.close_connection;
  return r;
}

struct Shared {
  db::BlockingPool& pool;
  CompatOptions options;
};

Result<std::optional<orders::IdempotencyKey>> idempotency_of(const http::RequestContext& ctx) {
  auto header = ctx.request.header("Idempotency-Key");
  if (!header) return std::optional<orders::IdempotencyKey>{};
  auto key = orders::valid_idempotency_key(*header);
  if (!key) return invalid_field("Idempotency-Key", Message{"validation.idempotency_key", {{"attribute", "Idempotency-Key"}}});
  const std::string what = "POST " + ctx.path + "\n" + std::string(ctx.request.body());
  return std::optional<orders::IdempotencyKey>{orders::IdempotencyKey{*key, crypto::to_hex(crypto::sha256(what))}};
}

struct Created {
  std::string order_id;
  bool replayed = false;
};

asio::awaitable<Result<http::Reply>> speech_handler(Shared& s, http::RequestContext& ctx) {
  if (!ctx.json) co_return invalid_field("body", Message{"validation.invalid_json"});
  auto request = read_speech_request(*ctx.json);
  if (!request) co_return request.error();
  auto key = idempotency_of(ctx);
  if (!key) co_return key.error();
  // Refused before any order exists when this build cannot encode the format.
  auto out = make_audio_out(request->format);
  if (!out) {
    co_return invalid_field("response_format", Message{"validation.in", {{"attribute", "response_format"},
                                                                         {"values", "mp3, wav, pcm"}}});
  }
  auto create = [&s, &ctx, req = *request, key = *key](db::Resources& r) -> Result<Created> {
    const orders::Caller caller{*ctx.principal, ctx.tz, s.options.content_blocked, s.options.clock, nullptr};
    auto order = speech_order(r.db, caller.principal.user_id, req);
    if (!order) return order.error();
    auto reply = orders::create_speech_order(r.db, caller, *order, key);
    if (!reply) return reply.error();
    if (!reply->replayed && s.options.on_queued) s.options.on_queued(r.redis);
    return Created{order_id_of(*reply), reply->replayed};
  };
  Result<Created> created = co_await s.pool.run(std::move(create));
  if (!created) co_return created.error();
  if (created->order_id.empty()) co_return ApiError::internal_error("a speech order without an id");

  auto stream = std::make_unique<SpeechStream>(
      StreamSetup{.pool = s.pool,
                  .store = *s.options.store,
                  .waiters = s.options.waiters,
                  .user = ctx.principal->user_id,
                  .order_id = created->order_id,
                  .poll_interval = s.options.poll_interval,
                  .max_wait = s.options.max_wait},
      std::move(out));
  Result<void> first = co_await stream->start();
  if (!first) co_return first.error();
  http::Reply reply{.status = 200, .bare = true, .content_type = content_type_of(request->format)};
  reply.headers.emplace_back("X-Order-Id", created->order_id);
  if (created->replayed) reply.headers.emplace_back("Idempotent-Replayed", "true");
  reply.body_source = std::move(stream);
  co_return std::move(reply);
}

asio::awaitable<Result<http::Reply>> models_handler(Shared& s, http::RequestContext& ctx) {
  auto list = [&ctx](db::Resources& r) { return models_json(r.db, ctx.principal->user_id); };
  std::string body = co_await s.pool.run(std::move(list));
  co_return http::Reply{.data_json = std::move(body), .bare = true};
}

asio::awaitable<Result<http::Reply>> voices_handler(Shared& s, http::RequestContext& ctx) {
  const auto query = http::Query::parse(ctx.query);
  std::optional<std::string> model;
  if (auto m = query.get("model"); m && !m->empty()) model = std::string(*m);
  auto list = [&ctx, model](db::Resources& r) -> Result<std::string> {
    if (model) return voices_json(r.db, ctx.principal->user_id, std::string_view(*model));
    return voices_json(r.db, ctx.principal->user_id, std::nullopt);
  };
  Result<std::string> body = co_await s.pool.run(std::move(list));
  if (!body) co_return body.error();
  co_return http::Reply{.data_json = std::move(*body), .bare = true};
}

}  // namespace

void register_routes(http::Router& router, db::BlockingPool& pool, CompatOptions options) {
  auto shared = std::make_shared<Shared>(Shared{pool, std::move(options)});
  auto add = [&](http::Method method, std::string pattern, auth::Scope scope, std::size_t body_limit, auto handler) {
    router.add_root({
        .method = method,
        .pattern = std::move(pattern),
        .access = http::Access::scope,
        .scope = scope,
        .body_limit = body_limit,
        .json_body = body_limit > 0,
        .key_header = http::KeyHeader::bearer,
        .render_error = &openai_error_response,
        .handler = [shared, handler](http::RequestContext& ctx) { return handler(*shared, ctx); },
    });
  };
  add(http::Method::post, "/v1/audio/speech", auth::Scope::orders_write, kSpeechBodyLimit, speech_handler);
  add(http::Method::get, "/v1/models", auth::Scope::orders_read, 0, models_handler);
  add(http::Method::get, "/v1/audio/voices", auth::Scope::orders_read, 0, voices_handler);
}

}  // namespace mediagen::compat
