// HTTP of the AI model catalogue (spec 4.7): the in-memory catalogue, the ETag and the two shapes.
#include <memory>

#include "mediagen/catalog/catalogue_cache.hpp"
#include "mediagen/catalog/catalogue_json.hpp"
#include "mediagen/catalog/catalogue_store.hpp"
#include "mediagen/catalog/routes.hpp"
#include "mediagen/db/blocking_pool.hpp"
#include "mediagen/http/router.hpp"

namespace mediagen::catalog {
namespace {

namespace asio = boost::asio;
using CataloguePtr = std::shared_ptr<const Catalogue>;

// From memory; from PostgreSQL only when this instance holds no current copy.
asio::awaitable<CataloguePtr> current(db::BlockingPool& pool, CatalogueCache& cache) {
  auto got = cache.get();
  if (got.catalogue) co_return got.catalogue;
  auto load = [](db::Resources& r) { return std::make_shared<const Catalogue>(load_catalogue(r.db)); };
  CataloguePtr loaded = co_await pool.run(load);
  cache.put(loaded, got.generation);
  co_return loaded;
}

Display display_of(const http::RequestContext& ctx, const Catalogue& c) {
  std::optional<std::string> requested;
  if (auto h = ctx.request.header("X-Display-Currency")) requested = parse_display_currency(*h);
  return choose_display(c, requested);
}

// 304 with no body when the client holds this representation already.
std::optional<http::Reply> not_modified(const http::RequestContext& ctx, const std::string& tag) {
  const auto lines = ctx.request.header_values("If-None-Match");
  if (lines.empty() || !if_none_match(http::join_header_lines(lines), tag)) return std::nullopt;
  return http::Reply{.status = 304, .data_json = "", .headers = {{"ETag", tag}, {"Vary", "X-Display-Currency, X-Timezone"}},
                     .bare = true};
}

http::Reply fresh(std::string data, const std::string& tag) {
  return http::Reply{.data_json = std::move(data),
                     .headers = {{"ETag", tag}, {"Vary", "X-Display-Currency, X-Timezone"}, {"Cache-Control", "no-cache"}}};
}

asio::awaitable<Result<http::Reply>> list(db::BlockingPool& pool, CatalogueCache& cache, http::RequestContext& ctx) {
  const CataloguePtr c = co_await current(pool, cache);
  const Display d = display_of(ctx, *c);
  const std::string tag = etag(c->version, d, ctx.tz);
  if (auto r = not_modified(ctx, tag)) co_return std::move(*r);
  co_return fresh(list_json(*c, d, ctx.tz), tag);
}

// Missing, out of the catalogue, unpriced or not billable: a plain 404 (spec 7.1).
asio::awaitable<Result<http::Reply>> one(db::BlockingPool& pool, CatalogueCache& cache, http::RequestContext& ctx) {
  const CataloguePtr c = co_await current(pool, cache);
  const Model* m = c->find(ctx.params.get("key").value_or(""));
  if (!m || !m->callable()) co_return ApiError::not_found();
  const Display d = display_of(ctx, *c);
  const std::string tag = etag(c->version, d, ctx.tz);
  if (auto r = not_modified(ctx, tag)) co_return std::move(*r);
  co_return fresh(entry_json(*c, *m, d, ctx.tz), tag);
}

}  // namespace

void register_routes(http::Router& router, db::BlockingPool& pool, CatalogueCache& cache) {
  router.add_api({
      .method = http::Method::get,
      .pattern = "/ai/models",
      .access = http::Access::any_key,
      .handler = [&pool, &cache](http::RequestContext& ctx) { return list(pool, cache, ctx); },
  });
  router.add_api({
      .method = http::Method::get,
      .pattern = "/ai/models/{key}",
      .access = http::Access::any_key,
      .handler = [&pool, &cache](http::RequestContext& ctx) { return one(pool, cache, ctx); },
  });
}

}  // namespace mediagen::catalog
