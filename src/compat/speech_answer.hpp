#pragma once
// The speech answer of every compatible surface (OpenAI's POST /v1/audio/speech today; a later
// surface reads its own body into a SpeechRequest and answers through here too):
//   1. the order is made in one transaction that decides every refusal before money moves:
//      validation, the content policy on every chunk, the policy cooldown, limits, token quota,
//      quota and balance, maintenance (orders::create_speech_order);
//   2. from then on every answer - the audio, or an error - carries X-Order-Id;
//   3. the audio is sent as it is made (SpeechStream); an answer that ends before all of it was
//      sent ends the order first, keeping charged only the positions the client received.
#include <functional>
#include <memory>
#include <optional>

#include <boost/asio/awaitable.hpp>

#include "mediagen/engines/codec/audio_out.hpp"
#include "mediagen/compat/routes.hpp"
#include "mediagen/db/blocking_pool.hpp"
#include "mediagen/http/route.hpp"
#include "mediagen/orders/create.hpp"
#include "order_ender.hpp"
#include "speech_request.hpp"
#include "speech_stream.hpp"

namespace mediagen::compat {

struct SpeechAnswerDeps {
  db::BlockingPool& pool;
  const CompatOptions& options;
  std::shared_ptr<OrderEnder> ender;
};

// Makes the order inside the blocking pool: refusals decided before money moves, as above.
using OrderCreator = std::function<Result<orders::OrderWritten>(db::Db& db, const orders::Caller& caller,
                                                                orders::OrderKeeper* kept)>;

struct AudioAnswer {
  OrderCreator create;
  std::optional<orders::IdempotencyKey> idempotency;
  std::unique_ptr<engines::AudioOut> out;             // the converter of the request's format
  std::string_view content_type;
  std::shared_ptr<StreamFraming> framing;    // nullptr: the audio's bytes as they are
  // The order's id also as request-id and x-request-id (ElevenLabs' headers; its SDK reads the latter).
  bool request_id_headers = false;
};

// Any order whose chunks' audio makes the answer (speech; a sound effect or a piece of music).
boost::asio::awaitable<Result<http::Reply>> answer_audio(const SpeechAnswerDeps& deps, http::RequestContext& ctx,
                                                         AudioAnswer answer);

// OpenAI's speech: `out` is the converter of the request's format (refused by the caller when missing).
boost::asio::awaitable<Result<http::Reply>> answer_speech(const SpeechAnswerDeps& deps, http::RequestContext& ctx,
                                                          SpeechRequest request,
                                                          std::optional<orders::IdempotencyKey> idempotency,
                                                          std::unique_ptr<engines::AudioOut> out);

}  // namespace mediagen::compat
