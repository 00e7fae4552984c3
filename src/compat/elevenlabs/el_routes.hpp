#pragma once
// The ElevenLabs-compatible surface, outside the API prefix (its SDK takes a base URL and adds
// /v1/...), authenticated by xi-api-key, every refusal in ElevenLabs' error shape (el_errors.hpp):
//   POST /v1/text-to-speech/{voice_id}[/stream][/with-timestamps|/stream/with-timestamps]  orders.write
//   POST /v1/sound-generation, POST /v1/music                                              orders.write
//   GET  /v1/voices, /v2/voices, /v1/voices/{voice_id}                                     voices.read
//   GET  /v1/user/subscription                                                             billing.read
// GET /v1/models is shared with the OpenAI surface (compat_handlers.cpp). Every call that makes
// audio is an order, billed, limited and listed like any other; its answer carries request-id.
#include <memory>

#include "../speech_answer.hpp"
#include "mediagen/http/router.hpp"

namespace mediagen::compat::elevenlabs {

// `owner` keeps what deps refers to alive as long as the routes.
void register_routes(http::Router& router, const SpeechAnswerDeps& deps, std::shared_ptr<const void> owner);

// The pipeline's renderer for these routes (http::Route::render_error): el_errors.hpp's shape.
http::Response elevenlabs_error_response(const ApiError& error, const http::RequestContext& ctx);

// GET /v1/models in ElevenLabs' shape (the shared route's answer to a request with xi-api-key).
boost::asio::awaitable<Result<http::Reply>> models(db::BlockingPool& pool, http::RequestContext& ctx);

}  // namespace mediagen::compat::elevenlabs
