// The three chunk-preview routes (spec 4.1, 4.1.2). All work (template lookup, planning, Redis)
// runs on the blocking pool; long texts are planned in the background.
#include <nlohmann/json.hpp>

#include "mediagen/cache/rate_window.hpp"
#include "mediagen/cache/redis.hpp"
#include "mediagen/core/log.hpp"
#include "mediagen/core/uuid.hpp"
#include "mediagen/db/blocking_pool.hpp"
#include "mediagen/http/query.hpp"
#include "mediagen/http/router.hpp"
#include "mediagen/orders/preview.hpp"
#include "mediagen/orders/preview.hpp"
#include "mediagen/orders/text.hpp"
#include "preview_request.hpp"
#include "preview_settings.hpp"
#include "preview_store.hpp"

namespace mediagen::orders {

namespace {

namespace asio = boost::asio;

// Throttles of spec 8.2.4, per key: 30 previews a minute, 120 reads a minute.
constexpr std::int64_t kPostsPerMinute = 30;
constexpr std::int64_t kReadsPerMinute = 120;
// The body cap leaves room for 4-byte UTF-8.
constexpr std::size_t kPreviewBodyLimit = 4 * kMaxPreviewChars + 64 * 1024;

http::Reply reply_for(int status, std::string data) {
  return http::Reply{.status = status, .data_json = std::move(data)};
}

// Counts one request against a throttle; refusals come back as 429 rate_limit_exceeded.
Result<void> throttle(cache::Redis& redis, const std::string& prefix, std::string_view what, ApiKeyId key,
                      std::int64_t per_minute, TimePoint now) {
  cache::RateWindows windows{.per_minute = per_minute};
  auto d = cache::check_rate(redis, prefix + "throttle:" + std::string(what) + ":", key.value, windows, now);
  if (!d.allowed) return ApiError::rate_limited(std::max<std::int64_t>(1, d.retry_after));
  return {};
}

struct Shared {
  db::BlockingPool& pool;
  PreviewOptions options;
  PreviewStore store;
};

asio::awaitable<Result<http::Reply>> post_preview(Shared& s, http::RequestContext& ctx) {
  auto parsed = read_preview_post(*ctx.json);
  if (!parsed) co_return parsed.error();
  const UserId user = ctx.principal->user_id;
  const ApiKeyId key = ctx.principal->key_id;
  auto work = [&s, user, key, req = std::move(*parsed)](db::Resources& r) -> Result<http::Reply> {
    if (auto t = throttle(r.redis, s.options.redis_prefix, "preview-post", key, kPostsPerMinute,
                          std::chrono::system_clock::now());
        !t) {
      return t.error();
    }
    auto settings = resolve_preview_settings(r.db, user, req.template_id, req.task_type, req.mode, req.generative,
                                             req.input_text);
    if (!settings) return settings.error();
    const std::string id = preview_id(text_hash(req.input_text), *settings);
    if (auto cached = s.store.get(r.redis, user, id)) {
      if (is_processing(*cached)) return reply_for(202, render_processing(id));
      if (auto page = page_of(*cached, 1, kDefaultPreviewPerPage)) return reply_for(200, std::move(*page));
    }
    const bool background = req.task_type == TaskType::tts && count_code_points(req.input_text) > kSyncPreviewChars;
    if (!background) {
      const std::string doc = render_plan(plan_preview(req.input_text, *settings), *settings, id);
      s.store.put(r.redis, user, id, doc);
      return reply_for(200, *page_of(doc, 1, kDefaultPreviewPerPage));
    }
    if (s.store.start_processing(r.redis, user, id)) {
      // Planned on another pool thread; this request answers at once.
      s.pool.submit([&s, user, id, text = req.input_text, plan_settings = *settings](db::Resources& bg) {
        try {
          s.store.put(bg.redis, user, id, render_plan(plan_chunks(text, plan_settings.chunker), plan_settings, id));
          if (s.options.on_ready) s.options.on_ready(bg, user, id);
        } catch (const std::exception& e) {
          log::error("background preview failed", {{"error", e.what()}});
        }
      });
    }
    return reply_for(202, render_processing(id));
  };
  Result<http::Reply> result = co_await s.pool.run(std::move(work));
  co_return result;
}

asio::awaitable<Result<http::Reply>> get_by_hash(Shared& s, http::RequestContext& ctx) {
  auto lookup = read_preview_lookup(http::Query::parse(ctx.query));
  if (!lookup) co_return std::move(lookup.error());
  const UserId user = ctx.principal->user_id;
  const ApiKeyId key = ctx.principal->key_id;
  auto work = [&s, user, key, id_text = lookup->template_id, hash_text = lookup->text_hash,
               mode = lookup->mode](db::Resources& r) -> Result<http::Reply> {
    if (auto t = throttle(r.redis, s.options.redis_prefix, "preview-read", key, kReadsPerMinute,
                          std::chrono::system_clock::now());
        !t) {
      return t.error();
    }
    auto settings = resolve_preview_settings(r.db, user, id_text, TaskType::tts, mode);
    if (!settings) return settings.error();
    const std::string id = preview_id(hash_text, *settings);
    auto cached = s.store.get(r.redis, user, id);
    if (!cached) return ApiError::not_found();
    if (is_processing(*cached)) return reply_for(202, render_processing(id));
    auto page = page_of(*cached, 1, kDefaultPreviewPerPage);
    if (!page) return ApiError::not_found();
    return reply_for(200, std::move(*page));
  };
  Result<http::Reply> result = co_await s.pool.run(std::move(work));
  co_return result;
}

asio::awaitable<Result<http::Reply>> get_by_id(Shared& s, http::RequestContext& ctx) {
  auto asked = read_preview_page(ctx.params.get("previewId").value_or(""), http::Query::parse(ctx.query));
  if (!asked) co_return std::move(asked.error());
  const UserId user = ctx.principal->user_id;
  const ApiKeyId key = ctx.principal->key_id;
  auto work = [&s, user, key, id = asked->id, p = asked->page, pp = asked->per_page](db::Resources& r) -> Result<http::Reply> {
    if (auto t = throttle(r.redis, s.options.redis_prefix, "preview-read", key, kReadsPerMinute,
                          std::chrono::system_clock::now());
        !t) {
      return t.error();
    }
    auto cached = s.store.get(r.redis, user, id);
    if (!cached) return ApiError::not_found();
    if (is_processing(*cached)) return reply_for(202, render_processing(id));
    auto body = page_of(*cached, p, pp);
    if (!body) return ApiError::not_found();
    return reply_for(200, std::move(*body));
  };
  Result<http::Reply> result = co_await s.pool.run(std::move(work));
  co_return result;
}

}  // namespace

void register_preview_routes(http::Router& router, db::BlockingPool& pool, PreviewOptions options) {
  // Lives as long as the router's handlers: the process.
  auto shared = std::make_shared<Shared>(Shared{pool, options, PreviewStore(options.redis_prefix)});
  router.add_api({
      .method = http::Method::post,
      .pattern = "/orders/chunks/preview",
      .access = http::Access::scope,
      .scope = auth::Scope::orders_read,
      .body_limit = kPreviewBodyLimit,
      .json_body = true,
      .handler = [shared](http::RequestContext& ctx) { return post_preview(*shared, ctx); },
  });
  router.add_api({
      .method = http::Method::get,
      .pattern = "/orders/chunks/preview",
      .access = http::Access::scope,
      .scope = auth::Scope::orders_read,
      .handler = [shared](http::RequestContext& ctx) { return get_by_hash(*shared, ctx); },
  });
  router.add_api({
      .method = http::Method::get,
      .pattern = "/orders/chunks/preview/{previewId}",
      .access = http::Access::scope,
      .scope = auth::Scope::orders_read,
      .handler = [shared](http::RequestContext& ctx) { return get_by_id(*shared, ctx); },
  });
}

}  // namespace mediagen::orders
