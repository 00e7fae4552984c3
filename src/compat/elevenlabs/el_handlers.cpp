// HTTP of the ElevenLabs-compatible surface: each body is read on the I/O thread; the catalogue
// reads and the orders run on the blocking pool; audio answers go through speech_answer.hpp.
#include <nlohmann/json.hpp>

#include "mediagen/engines/codec/audio_out.hpp"
#include "../compat_route.hpp"
#include "el_catalogue.hpp"
#include "el_errors.hpp"
#include "el_framing.hpp"
#include "el_request.hpp"
#include "el_routes.hpp"
#include "mediagen/orders/create.hpp"
#include "mediagen/orders/request.hpp"

namespace mediagen::compat::elevenlabs {
namespace {

namespace asio = boost::asio;
using nlohmann::json;

// text, previous_text and next_text may hold up to 4 bytes per code point, JSON escapes more.
constexpr std::size_t kSpeechBodyLimit = 8 * (kMaxInputChars + 2 * kMaxContextChars) + 64 * 1024;
constexpr std::size_t kPromptBodyLimit = 8 * kMaxPromptChars + 16 * 1024;

struct Shared {
  SpeechAnswerDeps deps;
  std::shared_ptr<const void> owner;
};

enum class Shape { audio, stream, timestamps, timestamp_lines };

Result<const json*> body_of(const http::RequestContext& ctx) {
  if (!ctx.json) return ApiError::validation("body", Message{"validation.invalid_json"});
  return ctx.json;
}

// The converter, or 422 when this build's FFmpeg lacks the format's encoder.
Result<std::unique_ptr<engines::AudioOut>> converter(const engines::OutputFormat& format) {
  auto out = engines::make_audio_out(format);
  if (!out) return ApiError::validation("output_format", Message{"validation.in", {{"attribute", "output_format"}, {"values", "mp3_44100_128"}}});
  return out;
}

asio::awaitable<Result<http::Reply>> speech(Shared& s, http::RequestContext& ctx, Shape shape) {
  auto raw = body_of(ctx);
  if (!raw) co_return raw.error();
  auto body = read_speech_body(**raw);
  if (!body) co_return body.error();
  auto format = read_output_format(ctx.query);
  if (!format) co_return format.error();
  auto out = converter(*format);
  if (!out) co_return out.error();
  const std::string voice(ctx.params.get("voice_id").value_or(""));
  auto create = [voice, b = std::move(*body)](db::Db& db, const orders::Caller& caller,
                                             orders::OrderKeeper* kept) -> Result<orders::OrderWritten> {
    auto order = speech_order(db, caller.principal.user_id, voice, b);
    if (!order) return order.error();
    return orders::create_speech_order(db, caller, *order, kept);
  };
  const bool timed = shape == Shape::timestamps || shape == Shape::timestamp_lines;
  AudioAnswer answer{.create = std::move(create),
                     .out = std::move(*out),
                     .content_type = timed ? std::string_view("application/json") : engines::output_content_type(*format),
                     .request_id_headers = true};
  if (shape == Shape::timestamps) answer.framing = whole_timestamps();
  if (shape == Shape::timestamp_lines) answer.framing = timestamp_lines();
  co_return co_await answer_audio(s.deps, ctx, std::move(answer));
}

// A sound effect or a piece of music: POST /orders' own body, read by POST /orders' own reader,
// so the order is exactly the one that body would make.
asio::awaitable<Result<http::Reply>> generate(Shared& s, http::RequestContext& ctx, json native,
                                              const engines::OutputFormat& format) {
  auto out = converter(format);
  if (!out) co_return out.error();
  auto create = [native = std::move(native)](db::Db& db, const orders::Caller& caller,
                                             orders::OrderKeeper* kept) -> Result<orders::OrderWritten> {
    auto request = orders::read_create_request(native);
    if (!request) return request.error();
    return orders::create_order(db, caller, std::move(*request), kept);
  };
  // A named value, not a temporary in the co_await: GCC 12 destroys such a temporary twice.
  AudioAnswer answer{.create = std::move(create),
                     .out = std::move(*out),
                     .content_type = engines::output_content_type(format),
                     .request_id_headers = true};
  co_return co_await answer_audio(s.deps, ctx, std::move(answer));
}

asio::awaitable<Result<http::Reply>> sound(Shared& s, http::RequestContext& ctx) {
  auto raw = body_of(ctx);
  if (!raw) co_return raw.error();
  auto body = read_sound_body(**raw);
  if (!body) co_return body.error();
  auto format = read_output_format(ctx.query);
  if (!format) co_return format.error();
  json task_data{{"text", body->text}};
  if (body->duration_seconds) task_data["duration_seconds"] = *body->duration_seconds;
  json native{{"task_type", "sfx"}, {"task_data", std::move(task_data)}};
  co_return co_await generate(s, ctx, std::move(native), *format);
}

asio::awaitable<Result<http::Reply>> music(Shared& s, http::RequestContext& ctx) {
  auto raw = body_of(ctx);
  if (!raw) co_return raw.error();
  auto body = read_music_body(**raw);
  if (!body) co_return body.error();
  auto format = read_output_format(ctx.query);
  if (!format) co_return format.error();
  json task_data{{"prompt", body->prompt}};
  if (body->length_ms) task_data["duration_seconds"] = static_cast<double>(*body->length_ms) / 1000.0;
  if (body->seed) task_data["seed"] = *body->seed;
  json native{{"task_type", "music"}, {"task_data", std::move(task_data)}};
  co_return co_await generate(s, ctx, std::move(native), *format);
}

template <class Read>
asio::awaitable<Result<http::Reply>> read_json(db::BlockingPool& pool, Read read) {
  Result<std::string> body = co_await pool.run(std::move(read));
  if (!body) co_return body.error();
  co_return http::Reply{.data_json = std::move(*body), .bare = true};
}

}  // namespace

http::Response elevenlabs_error_response(const ApiError& error, const http::RequestContext& ctx) {
  ElError rendered = elevenlabs_error(error, ctx.locale);
  http::Response r;
  r.status = rendered.status;
  r.headers = error.headers;
  bool has_retry_after = false;
  for (const auto& [k, v] : r.headers) has_retry_after = has_retry_after || k == "Retry-After";
  if (rendered.status == 429 && !has_retry_after) {
    if (auto after = error.extra_int("retry_after"); after && *after > 0) r.headers.emplace_back("Retry-After", std::to_string(*after));
  }
  r.body = std::move(rendered.body);
  r.close = error.close_connection;
  return r;
}

asio::awaitable<Result<http::Reply>> models(db::BlockingPool& pool, http::RequestContext&) {
  co_return co_await read_json(pool, [](db::Resources& r) -> Result<std::string> { return models_json(r.db); });
}

void register_routes(http::Router& router, const SpeechAnswerDeps& deps, std::shared_ptr<const void> owner) {
  auto shared = std::make_shared<Shared>(Shared{deps, std::move(owner)});
  auto add = [&](http::Method method, std::string pattern, auth::Scope scope, std::size_t body_limit, auto handler) {
    router.add_root(compat_route({method, std::move(pattern), scope, body_limit, http::KeyHeader::xi_api_key,
                                  &elevenlabs_error_response},
                                 [shared, handler](http::RequestContext& ctx) { return handler(*shared, ctx); }));
  };
  const auto tts = [&](std::string suffix, Shape shape) {
    add(http::Method::post, "/v1/text-to-speech/{voice_id}" + suffix, auth::Scope::orders_write, kSpeechBodyLimit,
        [shape](Shared& s, http::RequestContext& ctx) { return speech(s, ctx, shape); });
  };
  tts("", Shape::audio);
  tts("/stream", Shape::stream);
  tts("/with-timestamps", Shape::timestamps);
  tts("/stream/with-timestamps", Shape::timestamp_lines);
  add(http::Method::post, "/v1/sound-generation", auth::Scope::orders_write, kPromptBodyLimit, sound);
  add(http::Method::post, "/v1/music", auth::Scope::orders_write, kPromptBodyLimit, music);
  add(http::Method::get, "/v1/voices", auth::Scope::voices_read, 0, [](Shared& s, http::RequestContext& ctx) {
    return read_json(s.deps.pool, [user = ctx.principal->user_id](db::Resources& r) -> Result<std::string> {
      return voices_json(r.db, user);
    });
  });
  add(http::Method::get, "/v2/voices", auth::Scope::voices_read, 0, [](Shared& s, http::RequestContext& ctx) {
    return read_json(s.deps.pool, [user = ctx.principal->user_id, q = std::string(ctx.query)](db::Resources& r) {
      return search_voices_json(r.db, user, q);
    });
  });
  add(http::Method::get, "/v1/voices/{voice_id}", auth::Scope::voices_read, 0, [](Shared& s, http::RequestContext& ctx) {
    return read_json(s.deps.pool, [user = ctx.principal->user_id, v = std::string(ctx.params.get("voice_id").value_or(""))](
                                      db::Resources& r) { return voice_json(r.db, user, v); });
  });
  add(http::Method::get, "/v1/user/subscription", auth::Scope::billing_read, 0, [](Shared& s, http::RequestContext& ctx) {
    return read_json(s.deps.pool, [user = ctx.principal->user_id](db::Resources& r) -> Result<std::string> {
      return subscription_json(r.db, user);
    });
  });
}

}  // namespace mediagen::compat::elevenlabs
