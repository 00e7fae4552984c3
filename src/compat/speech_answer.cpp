#include "speech_answer.hpp"

#include "mediagen/orders/create.hpp"
#include "mediagen/orders/reads.hpp"

#include "compat_service.hpp"

namespace mediagen::compat {
namespace {

struct Created {
  std::string order_id;
  bool replayed = false;
};

}  // namespace

boost::asio::awaitable<Result<http::Reply>> answer_audio(const SpeechAnswerDeps& deps, http::RequestContext& ctx,
                                                         AudioAnswer answer) {
  const CompatOptions& options = deps.options;
  auto create = [&options, &ctx, make = std::move(answer.create), key = std::move(answer.idempotency)](
                    db::Resources& r) -> Result<Created> {
    const orders::Caller caller{*ctx.principal, ctx.tz, options.content_blocked, options.clock, nullptr};
    // The answer kept under a key is the order, as POST /orders keeps it: a replay finds its id there.
    std::optional<orders::OrderKeeper> kept;
    if (key) {
      kept.emplace(caller.principal.user_id, *key, [tz = ctx.tz](const orders::OrderWritten& done) {
        return db::StoredAnswer{.status = 201, .body = orders::order_json(done.order, tz)};
      });
    }
    auto written = make(r.db, caller, kept ? &*kept : nullptr);
    if (!written) return written.error();
    if (written->replayed) return Created{order_id_of(kept->earlier().body), true};
    if (orders::queued_work(*written) && options.on_queued) options.on_queued(r.redis);
    return Created{written->order.id, false};
  };
  Result<Created> created = co_await deps.pool.run(std::move(create));
  if (!created) co_return created.error();
  if (created->order_id.empty()) co_return ApiError::internal_error("an audio order without an id");
  // The pipeline adds these to whatever this request answers from here on, error or not.
  ctx.response_headers.emplace_back("X-Order-Id", created->order_id);
  if (answer.request_id_headers) {
    ctx.response_headers.emplace_back("request-id", created->order_id);
    ctx.response_headers.emplace_back("x-request-id", created->order_id);
  }

  auto stream = std::make_unique<SpeechStream>(StreamSetup{.pool = deps.pool,
                                                           .store = *options.store,
                                                           .waiters = options.waiters,
                                                           .user = ctx.principal->user_id,
                                                           .order_id = created->order_id,
                                                           .poll_interval = options.poll_interval,
                                                           .max_wait = options.max_wait,
                                                           .ender = deps.ender,
                                                           .draining = options.draining,
                                                           .framing = std::move(answer.framing)},
                                               std::move(answer.out));
  // A first chunk that fails has ended the order (its money back) before this error answer.
  Result<void> first = co_await stream->start();
  if (!first) co_return first.error();
  http::Reply reply{.status = 200, .bare = true, .content_type = answer.content_type};
  if (created->replayed) reply.headers.emplace_back("Idempotent-Replayed", "true");
  reply.body_source = std::move(stream);
  co_return std::move(reply);
}

boost::asio::awaitable<Result<http::Reply>> answer_speech(const SpeechAnswerDeps& deps, http::RequestContext& ctx,
                                                          SpeechRequest request,
                                                          std::optional<orders::IdempotencyKey> idempotency,
                                                          std::unique_ptr<engines::AudioOut> out) {
  const AudioFormat format = request.format;
  auto create = [req = std::move(request)](db::Db& db, const orders::Caller& caller,
                                           orders::OrderKeeper* kept) -> Result<orders::OrderWritten> {
    auto order = speech_order(db, caller.principal.user_id, req);
    if (!order) return order.error();
    return orders::create_speech_order(db, caller, *order, kept);
  };
  // A named value, not a temporary in the co_await: GCC 12 destroys such a temporary twice.
  AudioAnswer answer{.create = std::move(create),
                     .idempotency = std::move(idempotency),
                     .out = std::move(out),
                     .content_type = content_type_of(format)};
  co_return co_await answer_audio(deps, ctx, std::move(answer));
}

}  // namespace mediagen::compat
