// HTTP of the order operations that move money: read the request on the I/O thread, run the
// operation (one transaction) on the blocking pool, answer.
#include <type_traits>

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
#include "mediagen/orders/reads.hpp"
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

// How an operation answers: its status (201 when it queued work, 200 when it only changed
// state), its message, and the data it shows. A replay answers with the status and data kept
// under its Idempotency-Key, as they were first rendered.
template <class Done>
struct Answering {
  int status;
  const char* message;
  std::string (*data)(const Done& done, const TimeZone& tz);
};

std::string order_data(const OrderWritten& done, const TimeZone& tz) { return order_json(done.order, tz); }
std::string item_data(const ItemsQueued& done, const TimeZone& tz) { return item_json(done.items.front(), tz); }
std::string items_data(const ItemsQueued& done, const TimeZone& tz) {
  return "{\"order_id\":\"" + done.order_id.str() + "\",\"queued\":" + std::to_string(done.items.size()) +
         ",\"items\":" + items_json(done.items, tz) + "}";
}

constexpr Answering<OrderWritten> kCreated{201, "orders.created", &order_data};
constexpr Answering<OrderWritten> kCancelled{200, "orders.cancelled", &order_data};
constexpr Answering<ItemsQueued> kItemQueued{201, "orders.item_queued", &item_data};
constexpr Answering<ItemsQueued> kItemsQueued{201, "orders.items_queued", &items_data};

http::Reply replayed(const db::StoredAnswer& earlier) {
  http::Reply reply{.status = earlier.status, .data_json = earlier.body};
  reply.headers.emplace_back("Idempotent-Replayed", "true");
  return reply;
}

// Runs `op(db, caller, kept)` on the pool and answers as `how` says. `kept` keeps the answer
// under the request's Idempotency-Key (null without one) in the operation's transaction.
template <class Done, class Op>
asio::awaitable<Result<http::Reply>> run(Shared& s, http::RequestContext& ctx, const Answering<Done>& how,
                                         std::optional<IdempotencyKey> key, Op op) {
  auto job = [&s, &ctx, &how, key = std::move(key), op = std::move(op)](db::Resources& r) -> Result<http::Reply> {
    const Caller caller{*ctx.principal, ctx.tz, s.options.content_blocked, s.options.clock, s.options.quotes,
                        s.options.services};
    std::optional<AnswerKeeper<Done>> kept;
    if (key) {
      kept.emplace(caller.principal.user_id, *key, [&how, tz = ctx.tz](const Done& done) {
        return db::StoredAnswer{.status = how.status, .body = how.data(done, tz)};
      });
    }
    auto done = op(r.db, caller, kept ? &*kept : nullptr);
    if (!done) return done.error();
    if (done->replayed) return replayed(kept->earlier());
    if (queued_work(*done) && s.options.on_queued) s.options.on_queued(r.redis);
    if (!done->changes.empty() && s.options.on_changed) s.options.on_changed(std::move(done->changes));
    http::Reply reply{.status = how.status, .message = Message{how.message}};
    reply.data_json = kept && kept->kept() ? kept->kept()->body : how.data(*done, ctx.tz);
    if constexpr (std::is_same_v<Done, OrderWritten>) {
      if (done->slots) {
        reply.headers.emplace_back("X-Concurrency-Limit", std::to_string(done->slots->limit));
        reply.headers.emplace_back("X-Concurrency-Current", std::to_string(done->slots->current));
      }
    }
    return reply;
  };
  Result<http::Reply> reply = co_await s.pool.run(std::move(job));
  co_return reply;
}

// POST /orders: a JSON body, or a form whose fields read as the JSON body would be and whose
// files go along (voice_search).
asio::awaitable<Result<http::Reply>> create_handler(Shared& s, http::RequestContext& ctx) {
  auto key = http::idempotency_key_of(ctx);
  if (!key) co_return key.error();
  std::optional<OrderForm> form;
  if (ctx.form) {
    auto read = read_order_form(*ctx.form);
    if (!read) co_return read.error();
    form = std::move(*read);
  }
  auto request = read_create_request(form ? form->body : body_of(ctx), s.options.webhook_allow);
  if (!request) co_return request.error();
  auto op = [&s, &form, request = std::move(*request)](db::Db& db, const Caller& caller, OrderKeeper* kept) {
    return create_order(db, caller, request, kept,
                        OrderUploads{form ? form->files : std::vector<std::string_view>{}, s.options.uploads});
  };
  Result<http::Reply> reply = co_await run(s, ctx, kCreated, std::move(*key), std::move(op));
  co_return reply;
}

using Answer = asio::awaitable<Result<http::Reply>>;

Answer cancel_handler(Shared& s, http::RequestContext& ctx) {
  auto id = path_id<OrderId>(ctx, "order");
  if (!id) co_return id.error();
  auto op = [id = std::move(*id)](db::Db& db, const Caller& caller, OrderKeeper*) { return cancel_order(db, caller, id); };
  Result<http::Reply> reply = co_await run(s, ctx, kCancelled, std::nullopt, std::move(op));
  co_return reply;
}

// The refusals in the order the spec's checks run: the Idempotency-Key, the body, then the id.
Answer retry_handler(Shared& s, http::RequestContext& ctx) {
  auto key = http::idempotency_key_of(ctx);
  if (!key) co_return key.error();
  auto topup = read_retry_body(body_of(ctx));
  if (!topup) co_return topup.error();
  auto id = path_id<OrderId>(ctx, "order");
  if (!id) co_return id.error();
  auto op = [id = std::move(*id), topup = std::move(*topup)](db::Db& db, const Caller& caller, OrderKeeper* kept) {
    return retry_order(db, caller, id, topup, kept);
  };
  Result<http::Reply> reply = co_await run(s, ctx, kCreated, std::move(*key), std::move(op));
  co_return reply;
}

Answer retry_failed_handler(Shared& s, http::RequestContext& ctx) {
  auto id = path_id<OrderId>(ctx, "order");
  if (!id) co_return id.error();
  auto op = [id = std::move(*id)](db::Db& db, const Caller& caller, ItemsKeeper*) {
    return retry_failed_items(db, caller, id);
  };
  Result<http::Reply> reply = co_await run(s, ctx, kItemsQueued, std::nullopt, std::move(op));
  co_return reply;
}

Answer item_retry_handler(Shared& s, http::RequestContext& ctx) {
  auto key = http::idempotency_key_of(ctx);
  if (!key) co_return key.error();
  auto text = read_item_text(body_of(ctx), kMaxItemTextChars);
  if (!text) co_return text.error();
  auto order = path_id<OrderId>(ctx, "order");
  auto item = path_id<ItemId>(ctx, "item");
  if (!order || !item) co_return ApiError::not_found();
  auto op = [order = std::move(*order), item = std::move(*item), text = std::move(*text)](
                db::Db& db, const Caller& caller, ItemsKeeper* kept) { return retry_item(db, caller, order, item, text, kept); };
  Result<http::Reply> reply = co_await run(s, ctx, kItemQueued, std::move(*key), std::move(op));
  co_return reply;
}

Answer regenerate_handler(Shared& s, http::RequestContext& ctx) {
  auto text = read_item_text(body_of(ctx), kMaxItemTextChars);
  if (!text) co_return text.error();
  auto order = path_id<OrderId>(ctx, "order");
  auto item = path_id<ItemId>(ctx, "item");
  if (!order || !item) co_return ApiError::not_found();
  auto op = [order = std::move(*order), item = std::move(*item), text = std::move(*text)](
                db::Db& db, const Caller& caller, ItemsKeeper*) { return regenerate_item(db, caller, order, item, text); };
  Result<http::Reply> reply = co_await run(s, ctx, kItemQueued, std::nullopt, std::move(op));
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
