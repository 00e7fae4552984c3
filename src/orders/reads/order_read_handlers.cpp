// HTTP of the order reads (spec 4.1, 4.2): parse, read (one order from the I/O thread, the list
// on the blocking pool), render.
#include <string>
#include <vector>

#include "mediagen/db/async_pg.hpp"
#include "mediagen/db/blocking_pool.hpp"
#include "mediagen/http/query.hpp"
#include "mediagen/http/router.hpp"
#include "mediagen/orders/reads.hpp"

namespace mediagen::orders {
namespace {

namespace asio = boost::asio;

constexpr std::string_view kStatusValues =
    "created, pending, in_progress, completed, result_delivered, failed, compensated, cancelled, partially_completed";

// Adds one failure to the 422 being collected, so it names every bad parameter at once.
void fail(std::optional<ApiError>& error, std::string field, Message message) {
  if (!error) error = ApiError::validation(std::move(field), std::move(message));
  else error->add_field(std::move(field), std::move(message));
}

// Query of GET /orders. Empty values do not filter (as if absent). task_type takes one value or
// the array form task_type[]; values outside the enum are not an error, they match nothing.
Result<OrderFilter> parse_filter(const http::Query& query) {
  const auto page = http::integer_param(query, "page", {.fallback = 1, .min = 1, .max = std::nullopt});
  const auto per_page = http::integer_param(
      query, "per_page", {.fallback = kDefaultOrdersPerPage, .min = 1, .max = kMaxOrdersPerPage});
  std::optional<ApiError> error = http::combined_error({&page, &per_page});
  OrderFilter filter;
  if (page) filter.page = *page;
  if (per_page) filter.per_page = *per_page;

  if (query.has("template_id[]")) {
    fail(error, "template_id", Message{"validation.uuid", {{"attribute", "template_id"}}});
  } else if (auto id = query.get("template_id"); id && !id->empty()) {
    if (auto parsed = TemplateId::parse(*id)) filter.template_id = std::move(*parsed);
    else fail(error, "template_id", Message{"validation.uuid", {{"attribute", "template_id"}}});
  }

  const auto status_in = Message{"validation.in", {{"attribute", "status"}, {"values", std::string(kStatusValues)}}};
  if (query.has("status[]")) {
    fail(error, "status", status_in);
  } else if (auto status = query.get("status"); status && !status->empty()) {
    if (auto parsed = order_status_from_string(*status)) filter.status = *parsed;
    else fail(error, "status", status_in);
  }

  for (auto type : query.all("task_type")) {
    if (type.empty()) continue;
    if (!filter.task_types) filter.task_types.emplace();
    if (auto parsed = parse_task_type(type)) filter.task_types->push_back(*parsed);
  }
  if (error) return std::move(*error);
  return filter;
}

using http::path_id;

asio::awaitable<Result<http::Reply>> list(db::BlockingPool& pool, http::RequestContext& ctx) {
  auto filter = parse_filter(http::Query::parse(ctx.query));
  if (!filter) co_return filter.error();
  auto read = [user = ctx.principal->user_id, f = std::move(*filter)](db::Resources& r) {
    return list_orders(r.db, user, f);
  };
  const OrderPage page = co_await pool.run(std::move(read));
  co_return http::Reply{.data_json = order_page_json(page, ctx.tz)};
}

// The caller's order of the path with its items, read from the I/O thread in one statement.
asio::awaitable<Result<Order>> own_order(db::AsyncPg& pg, http::RequestContext& ctx) {
  auto id = path_id<OrderId>(ctx, "order");
  if (!id) co_return id.error();
  co_return co_await find_own_order(pg, ctx.principal->user_id, std::move(*id));
}

asio::awaitable<Result<http::Reply>> show(db::AsyncPg& pg, http::RequestContext& ctx) {
  Result<Order> order = co_await own_order(pg, ctx);
  if (!order) co_return order.error();
  co_return http::Reply{.data_json = order_json(*order, ctx.tz, WithItems::yes)};
}

asio::awaitable<Result<http::Reply>> items(db::AsyncPg& pg, http::RequestContext& ctx) {
  Result<Order> order = co_await own_order(pg, ctx);
  if (!order) co_return order.error();
  co_return http::Reply{.data_json = items_json(order->items, ctx.tz)};
}

asio::awaitable<Result<http::Reply>> item(db::AsyncPg& pg, http::RequestContext& ctx) {
  auto order_id = path_id<OrderId>(ctx, "order");
  auto item_id = path_id<ItemId>(ctx, "item");
  if (!order_id || !item_id) co_return ApiError::not_found();
  Result<Item> found = co_await find_own_item(pg, ctx.principal->user_id, std::move(*order_id), std::move(*item_id));
  if (!found) co_return found.error();
  co_return http::Reply{.data_json = item_json(*found, ctx.tz)};
}

asio::awaitable<Result<http::Reply>> text(db::AsyncPg& pg, http::RequestContext& ctx) {
  auto order_id = path_id<OrderId>(ctx, "order");
  auto item_id = path_id<ItemId>(ctx, "item");
  if (!order_id || !item_id) co_return ApiError::not_found();
  Result<ItemText> found = co_await item_text(pg, ctx.principal->user_id, std::move(*order_id), std::move(*item_id));
  if (!found) co_return found.error();
  co_return http::Reply{.data_json = item_text_json(*found)};
}

template <class Source>
using Reader = asio::awaitable<Result<http::Reply>> (*)(Source&, http::RequestContext&);

template <class Source>
void add_get(http::Router& router, Source& source, std::string pattern, Reader<Source> reader) {
  router.add_api(http::scoped_get(std::move(pattern), auth::Scope::orders_read,
                                  [&source, reader](http::RequestContext& ctx) { return reader(source, ctx); }));
}

}  // namespace

void register_order_read_routes(http::Router& router, db::BlockingPool& pool, db::AsyncPg& reads) {
  // The list counts, then reads a page, in one transaction: it stays on the pool.
  add_get(router, pool, "/orders", &list);
  add_get(router, reads, "/orders/{order}", &show);
  add_get(router, reads, "/orders/{order}/items", &items);
  add_get(router, reads, "/orders/{order}/items/{item}", &item);
  add_get(router, reads, "/orders/{order}/items/{item}/text", &text);
}

}  // namespace mediagen::orders
