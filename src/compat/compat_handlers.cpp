// HTTP of the OpenAI-compatible surface: read the request on the I/O thread, then answer it the
// way every compatible surface answers speech (speech_answer.hpp).
#include <nlohmann/json.hpp>

#include "compat_route.hpp"
#include "compat_service.hpp"
#include "mediagen/compat/routes.hpp"
#include "mediagen/core/crypto.hpp"
#include "mediagen/core/log.hpp"
#include "mediagen/db/blocking_pool.hpp"
#include "mediagen/http/query.hpp"
#include "mediagen/http/router.hpp"
#include "openai_errors.hpp"
#include "speech_answer.hpp"
#include "elevenlabs/el_errors.hpp"
#include "elevenlabs/el_routes.hpp"

namespace mediagen::compat {
namespace {

namespace asio = boost::asio;

// input may hold kMaxInputChars code points of up to 4 bytes, instructions as many.
constexpr std::size_t kSpeechBodyLimit = 8 * kMaxInputChars + 64 * 1024;

// The pipeline's renderer for these routes (http::Route::render_error).
http::Response openai_error_response(const ApiError& error, const http::RequestContext& ctx) {
  OpenAiError rendered = openai_error(error, ctx.locale);
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
  std::shared_ptr<OrderEnder> ender;
};

Result<std::optional<orders::IdempotencyKey>> idempotency_of(const http::RequestContext& ctx) {
  auto header = ctx.request.header("Idempotency-Key");
  if (!header) return std::optional<orders::IdempotencyKey>{};
  auto key = orders::valid_idempotency_key(*header);
  if (!key) return invalid_field("Idempotency-Key", Message{"validation.idempotency_key", {{"attribute", "Idempotency-Key"}}});
  const std::string what = "POST " + ctx.path + "\n" + std::string(ctx.request.body());
  return std::optional<orders::IdempotencyKey>{orders::IdempotencyKey{*key, crypto::to_hex(crypto::sha256(what))}};
}

asio::awaitable<Result<http::Reply>> speech_handler(Shared& s, http::RequestContext& ctx) {
  if (!ctx.json) co_return invalid_field("body", Message{"validation.invalid_json"});
  auto request = read_speech_request(*ctx.json);
  if (!request) co_return request.error();
  auto key = idempotency_of(ctx);
  if (!key) co_return key.error();
  // Refused before any order exists when this build cannot encode the format.
  auto out = engines::make_audio_out(audio_out_spec(request->format));
  if (!out) {
    co_return invalid_field("response_format", Message{"validation.in", {{"attribute", "response_format"},
                                                                         {"values", "mp3, wav, pcm"}}});
  }
  const SpeechAnswerDeps deps{s.pool, s.options, s.ender};
  co_return co_await answer_speech(deps, ctx, std::move(*request), std::move(*key), std::move(out));
}

// The one path both surfaces answer: a request that carries xi-api-key is ElevenLabs' SDK.
bool elevenlabs_request(const http::RequestContext& ctx) { return ctx.request.header("xi-api-key").has_value(); }

http::Response models_error_response(const ApiError& error, const http::RequestContext& ctx) {
  if (elevenlabs_request(ctx)) return elevenlabs::elevenlabs_error_response(error, ctx);
  return openai_error_response(error, ctx);
}

asio::awaitable<Result<http::Reply>> models_handler(Shared& s, http::RequestContext& ctx) {
  if (elevenlabs_request(ctx)) co_return co_await elevenlabs::models(s.pool, ctx);
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
  auto ender = std::make_shared<OrderEnder>(pool, options.on_changed);
  auto shared = std::make_shared<Shared>(Shared{pool, std::move(options), std::move(ender)});
  auto add = [&](http::Method method, std::string pattern, auth::Scope scope, std::size_t body_limit, auto handler,
                 http::KeyHeader key = http::KeyHeader::bearer) {
    const bool shared_path = key == http::KeyHeader::bearer_or_xi_api_key;
    const auto render = shared_path ? &models_error_response : &openai_error_response;
    router.add_root(compat_route({method, std::move(pattern), scope, body_limit, key, render},
                                 [shared, handler](http::RequestContext& ctx) { return handler(*shared, ctx); }));
  };
  add(http::Method::post, "/v1/audio/speech", auth::Scope::orders_write, kSpeechBodyLimit, speech_handler);
  add(http::Method::get, "/v1/models", auth::Scope::orders_read, 0, models_handler, http::KeyHeader::bearer_or_xi_api_key);
  add(http::Method::get, "/v1/audio/voices", auth::Scope::orders_read, 0, voices_handler);
  elevenlabs::register_routes(router, SpeechAnswerDeps{pool, shared->options, shared->ender}, shared);
}

}  // namespace mediagen::compat
