#include "speech_answer.hpp"

#include "mediagen/orders/create.hpp"
#include "mediagen/orders/reads.hpp"

#include "compat_service.hpp"
#include "speech_stream.hpp"

namespace mediagen::compat {
namespace {

struct Created {
  std::string order_id;
  bool replayed = false;
};

}  // namespace

boost::asio::awaitable<Result<http::Reply>> answer_speech(const SpeechAnswerDeps& deps, http::RequestContext& ctx,
                                                          SpeechRequest request,
                                                          std::optional<orders::IdempotencyKey> idempotency,
                                                          std::unique_ptr<AudioOut> out) {
  const CompatOptions& options = deps.options;
  const AudioFormat format = request.format;
  auto create = [&options, &ctx, req = std::move(request), key = std::move(idempotency)](db::Resources& r) -> Result<Created> {
    const orders::Caller caller{*ctx.principal, ctx.tz, options.content_blocked, options.clock, nullptr};
    auto order = speech_order(r.db, caller.principal.user_id, req);
    if (!order) return order.error();
    // The answer kept under a key is the order, as POST /orders keeps it: a replay finds its id there.
    std::optional<orders::OrderKeeper> kept;
    if (key) {
      kept.emplace(caller.principal.user_id, *key, [tz = ctx.tz](const orders::OrderWritten& done) {
        return db::StoredAnswer{.status = 201, .body = orders::order_json(done.order, tz)};
      });
    }
    auto written = orders::create_speech_order(r.db, caller, *order, kept ? &*kept : nullptr);
    if (!written) return written.error();
    if (written->replayed) return Created{order_id_of(kept->earlier().body), true};
    if (orders::queued_work(*written) && options.on_queued) options.on_queued(r.redis);
    return Created{written->order.id, false};
  };
  Result<Created> created = co_await deps.pool.run(std::move(create));
  if (!created) co_return created.error();
  if (created->order_id.empty()) co_return ApiError::internal_error("a speech order without an id");
  // The pipeline adds these to whatever this request answers from here on, error or not.
  ctx.response_headers.emplace_back("X-Order-Id", created->order_id);

  auto stream = std::make_unique<SpeechStream>(StreamSetup{.pool = deps.pool,
                                                           .store = *options.store,
                                                           .waiters = options.waiters,
                                                           .user = ctx.principal->user_id,
                                                           .order_id = created->order_id,
                                                           .poll_interval = options.poll_interval,
                                                           .max_wait = options.max_wait,
                                                           .ender = deps.ender,
                                                           .draining = options.draining},
                                               std::move(out));
  // A first chunk that fails has ended the order (its money back) before this error answer.
  Result<void> first = co_await stream->start();
  if (!first) co_return first.error();
  http::Reply reply{.status = 200, .bare = true, .content_type = content_type_of(format)};
  if (created->replayed) reply.headers.emplace_back("Idempotent-Replayed", "true");
  reply.body_source = std::move(stream);
  co_return std::move(reply);
}

}  // namespace mediagen::compat
