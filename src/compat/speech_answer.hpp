#pragma once
// The speech answer of every compatible surface (OpenAI's POST /v1/audio/speech today; a later
// surface reads its own body into a SpeechRequest and answers through here too):
//   1. the order is made in one transaction that decides every refusal before money moves:
//      validation, the content policy on every chunk, the policy cooldown, limits, token quota,
//      quota and balance, maintenance (orders::create_speech_order);
//   2. from then on every answer - the audio, or an error - carries X-Order-Id;
//   3. the audio is sent as it is made (SpeechStream); an answer that ends before all of it was
//      sent ends the order first, keeping charged only the positions the client received.
#include <memory>
#include <optional>

#include <boost/asio/awaitable.hpp>

#include "audio_out.hpp"
#include "mediagen/compat/routes.hpp"
#include "mediagen/db/blocking_pool.hpp"
#include "mediagen/http/route.hpp"
#include "mediagen/orders/create.hpp"
#include "order_ender.hpp"
#include "speech_request.hpp"

namespace mediagen::compat {

struct SpeechAnswerDeps {
  db::BlockingPool& pool;
  const CompatOptions& options;
  std::shared_ptr<OrderEnder> ender;
};

// `out` is the converter of the request's format (refused by the caller when missing).
boost::asio::awaitable<Result<http::Reply>> answer_speech(const SpeechAnswerDeps& deps, http::RequestContext& ctx,
                                                          SpeechRequest request,
                                                          std::optional<orders::IdempotencyKey> idempotency,
                                                          std::unique_ptr<AudioOut> out);

}  // namespace mediagen::compat
