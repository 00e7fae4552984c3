// HTTP of the order operations that move money: read the request on the I/O thread, run the
// operation (one transaction) on the blocking pool, answer.
#include <nlohmann/json.hpp>

#include "mediagen/cache/redis.hpp"
#include "mediagen/core/crypto.hpp"
#include "mediagen/db/blocking_pool.hpp"
#include "mediagen/http/idempotency.hpp"
#include "mediagen/http/router.hpp"
#include "mediagen/orders/order.hpp"
#include "mediagen/orders/create.hpp"
#include "mediagen/orders/actions.hpp"
#include "mediagen/orders/items.hpp"
#include "mediagen/orders/request.hpp"
#include "mediagen/orders/routes.hpp"
#include "order_form.hpp"

namespace mediagen::orders {
namespace {

namespace asio = boost::asio;

// input_text may hold 1,000,000 code points of up to 4 bytes each.
constexpr std::size_t kCreateBodyLimit = 4 * 1'000'000 + 64 * 1024;
constexpr std::size_t kActionBodyLimit = 4 * 50'000 + 16 * 1024;

// POST /orders as multipart/form-data: one audio file of up to the intake's 50 MB (voice
// search), and fields as large as a JSON body's input_text.
http::MultipartLimits order_form_limits() {
  http::MultipartLimits limits;
  limits.max_file_bytes = 50 * 1024 * 1024;
  limits.max_field_bytes = kCreateBodyLimit;
  limits.max_total_bytes = limits.max_file_bytes + kCreateBodyLimit + 64 * 1024;
  limits.max_parts = 16;
  return limits;
}

struct Shared {
  db::BlockingPool& pool;
  OrderWriteOptions options;
};

// The Idempotency-Key of the request, hashed with what it asks for; 422 when malformed.
Result<std::optional<IdempotencyKey>> idempotency_of(const http::RequestContext& ctx) {
  auto key = http::idempotency_key_of(ctx);
  if (!key) return key.error();
  if (!*key) return std::optional<IdempotencyKey>{};
  return std::optional<IdempotencyKey>{IdempotencyKey{(*key)->key, (*key)->request_hash}};
}

http::Reply to_reply(const OperationReply& r) {
  const int status = r.outcome == Outcome::work_queued ? 201 : 200;
  http::Reply reply{.status = status, .message = Message{r.message}, .data_json = r.data_json};
  if (r.replayed) reply.headers.emplace_back("Idempotent-Replayed", "true");
  if (r.slots) {
    reply.headers.emplace_back("X-Concurrency-Limit", std::to_string(r.slots->limit));
    reply.headers.emplace_back("X-Concurrency-Current", std::to_string(r.slots->current));
  }
  return reply;
}

using http::path_id;

const nlohmann::json& empty_object() {
  static const nlohmann::json kEmpty = nlohmann::json::object();
  return kEmpty;
}

// The parsed body, or {} for a body-less POST (the spec's action routes take none). A body that
// is JSON null is a body of the wrong type, not a missing one.
const nlohmann::json& body_of(const http::RequestContext& ctx) {
  return ctx.json ? *ctx.json : empty_object();
}

// Runs `op(db, caller)` on the pool and answers with its reply.
template <class Op>
asio::awaitable<Result<http::Reply>> run(Shared& s, http::RequestContext& ctx, Op op) {
  auto job = [&s, &ctx, op = std::move(op)](db::Resources& r) -> Result<http::Reply> {
    const Caller caller{*ctx.principal, ctx.tz, s.options.content_blocked, s.options.clock, s.options.quotes};
    auto result = op(r.db, caller);
    if (!result) return result.error();
    if (result->outcome == Outcome::work_queued && !result->replayed && s.options.on_queued) s.options.on_queued(r.redis);
    if (!result->changes.empty() && s.options.on_changed) s.options.on_changed(std::move(result->changes));
    return to_reply(*result);
  };
  Result<http::Reply> reply = co_await s.pool.run(std::move(job));
  co_return reply;
}

// POST /orders: a JSON body, or a form whose fields read as the JSON body would be and whose
// files go along (voice_search).
asio::awaitable<Result<http::Reply>> create_handler(Shared& s, http::RequestContext& ctx) {
  auto key = idempotency_of(ctx);
  if (!key) co_return key.error();
  std::optional<OrderForm> form;
  if (ctx.form) {
    auto read = read_order_form(*ctx.form);
    if (!read) co_return read.error();
    form = std::move(*read);
  }
  auto request = read_create_request(form ? form->body : body_of(ctx));
  if (!request) co_return request.error();
  auto op = [&s, &form, request = std::move(*request), key = *key](db::Db& db, const Caller& caller) {
    return create_order(db, caller, request, key, OrderUploads{form ? form->files : std::vector<std::string_view>{},
                                                               s.options.uploads});
  };
  Result<http::Reply> reply = co_await run(s, ctx, std::move(op));
  co_return reply;
}

using Answer = asio::awaitable<Result<http::Reply>>;

Answer cancel_handler(Shared& s, http::RequestContext& ctx) {
  auto id = path_id<OrderId>(ctx, "order");
  if (!id) co_return id.error();
  auto op = [id = std::move(*id)](db::Db& db, const Caller& caller) { return cancel_order(db, caller, id); };
  Result<http::Reply> reply = co_await run(s, ctx, std::move(op));
  co_return reply;
}

// The refusals in the order the spec's checks run: the Idempotency-Key, the body, then the id.
Answer retry_handler(Shared& s, http::RequestContext& ctx) {
  auto key = idempotency_of(ctx);
  if (!key) co_return key.error();
  auto topup = read_retry_body(body_of(ctx));
  if (!topup) co_return topup.error();
  auto id = path_id<OrderId>(ctx, "order");
  if (!id) co_return id.error();
  auto op = [id = std::move(*id), topup = std::move(*topup), key = *key](db::Db& db, const Caller& caller) {
    return retry_order(db, caller, id, topup, key);
  };
  Result<http::Reply> reply = co_await run(s, ctx, std::move(op));
  co_return reply;
}

Answer retry_failed_handler(Shared& s, http::RequestContext& ctx) {
  auto id = path_id<OrderId>(ctx, "order");
  if (!id) co_return id.error();
  auto op = [id = std::move(*id)](db::Db& db, const Caller& caller) { return retry_failed_items(db, caller, id); };
  Result<http::Reply> reply = co_await run(s, ctx, std::move(op));
  co_return reply;
}

Answer item_retry_handler(Shared& s, http::RequestContext& ctx) {
  auto key = idempotency_of(ctx);
  if (!key) co_return key.error();
  auto text = read_item_text(body_of(ctx), kMaxItemTextChars);
  if (!text) co_return text.error();
  auto order = path_id<OrderId>(ctx, "order");
  auto item = path_id<ItemId>(ctx, "item");
  if (!order || !item) co_return ApiError::not_found();
  auto op = [order = std::move(*order), item = std::move(*item), text = std::move(*text), key = *key](
                db::Db& db, const Caller& caller) { return retry_item(db, caller, order, item, text, key); };
  Result<http::Reply> reply = co_await run(s, ctx, std::move(op));
  co_return reply;
}

Answer regenerate_handler(Shared& s, http::RequestContext& ctx) {
  auto text = read_item_text(body_of(ctx), kMaxItemTextChars);
  if (!text) co_return text.error();
  auto order = path_id<OrderId>(ctx, "order");
  auto item = path_id<ItemId>(ctx, "item");
  if (!order || !item) co_return ApiError::not_found();
  auto op = [order = std::move(*order), item = std::move(*item), text = std::move(*text)](
                db::Db& db, const Caller& caller) { return regenerate_item(db, caller, order, item, text); };
  Result<http::Reply> reply = co_await run(s, ctx, std::move(op));
  co_return reply;
}

}  // namespace

void register_order_write_routes(http::Router& router, db::BlockingPool& pool, OrderWriteOptions options) {
  auto shared = std::make_shared<Shared>(Shared{pool, std::move(options)});
  auto add = [&](std::string pattern, std::size_t limit, auto handler, bool multipart = false) {
    http::Route route{
        .method = http::Method::post,
        .pattern = std::move(pattern),
        .access = http::Access::scope,
        .scope = auth::Scope::orders_write,
        .body_limit = limit,
        .json_body = true,
        .handler = [shared, handler](http::RequestContext& ctx) { return handler(*shared, ctx); },
    };
    if (multipart) {
      route.multipart_body = true;
      route.multipart = order_form_limits();
      route.json_body_limit = limit;
      route.body_limit = route.multipart.max_total_bytes;
    }
    router.add_api(std::move(route));
  };

  add("/orders", kCreateBodyLimit, create_handler, true);
  add("/orders/{order}/cancel", kActionBodyLimit, cancel_handler);
  add("/orders/{order}/retry", kActionBodyLimit, retry_handler);
  add("/orders/{order}/items/retry-failed", kActionBodyLimit, retry_failed_handler);
  add("/orders/{order}/items/{item}/retry", kActionBodyLimit, item_retry_handler);
  add("/orders/{order}/items/{item}/regenerate", kActionBodyLimit, regenerate_handler);
}

}  // namespace mediagen::orders
