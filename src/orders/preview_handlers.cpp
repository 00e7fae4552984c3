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
#include "mediagen/orders/routes.hpp"
#include "field_errors.hpp"
#include "order_request.hpp"
#include "preview_settings.hpp"
#include "preview_store.hpp"

namespace mediagen::orders {

namespace {

namespace asio = boost::asio;

// Throttles of spec 8.2.4, per key: 30 previews a minute, 120 reads a minute.
constexpr std::int64_t kPostsPerMinute = 30;
constexpr std::int64_t kReadsPerMinute = 120;
// The longest text a preview takes (code points); the body cap leaves room for 4-byte UTF-8.
constexpr std::size_t kMaxPreviewChars = 1'000'000;
constexpr std::size_t kPreviewBodyLimit = 4 * kMaxPreviewChars + 64 * 1024;

// Task types a preview plans; the five filter-only values of the enum cannot be ordered (spec 1).
constexpr std::string_view kPlannable[] = {"tts", "sfx", "music", "voice_search"};
constexpr std::string_view kFilterOnly[] = {"image", "txt2img", "remix", "image_edit", "voice_clone"};

struct PreviewRequest {
  std::string input_text;
  std::optional<std::string> template_id;
  std::string task_type = "tts";
  GenerationMode mode = GenerationMode::ordinary;
  GenerativeParams generative;  // sfx, music: task_data's duration_seconds and n_variants
};


Result<GenerationMode> parse_mode(const std::string& field, const nlohmann::json* value) {
  if (!value || value->is_null()) return GenerationMode::ordinary;
  if (value->is_string()) {
    if (auto m = generation_mode_from_string(value->get_ref<const std::string&>())) return *m;
  }
  return ApiError::validation(field, Message{"validation.in", {{"attribute", field}, {"values", "ordinary, paragraph"}}});
}

Result<PreviewRequest> parse_post(const nlohmann::json& body) {
  if (!body.is_object()) return ApiError::validation("body", Message{"validation.object", {{"attribute", "body"}}});
  PreviewRequest req;
  FieldErrors errors;
  auto fail = [&](std::string field, Message m) { errors.add(std::move(field), std::move(m)); };
  auto field = [&](const char* name) -> const nlohmann::json* {
    auto it = body.find(name);
    return it == body.end() ? nullptr : &*it;
  };

  const auto* text = field("input_text");
  if (!text || text->is_null() || (text->is_string() && text->get_ref<const std::string&>().empty())) {
    fail("input_text", Message{"validation.required", {{"attribute", "input_text"}}});
  } else if (!text->is_string()) {
    fail("input_text", Message{"validation.string", {{"attribute", "input_text"}}});
  } else {
    req.input_text = text->get<std::string>();
    if (count_code_points(req.input_text) > kMaxPreviewChars) {
      fail("input_text", Message{"validation.max_string", {{"attribute", "input_text"}, {"max", std::to_string(kMaxPreviewChars)}}});
    }
  }

  if (const auto* type = field("task_type"); type && !type->is_null()) {
    const bool known = type->is_string() && std::find(std::begin(kPlannable), std::end(kPlannable),
                                                      type->get_ref<const std::string&>()) != std::end(kPlannable);
    const bool order_only = type->is_string() &&
                            std::find(std::begin(kFilterOnly), std::end(kFilterOnly),
                                      type->get_ref<const std::string&>()) != std::end(kFilterOnly);
    if (order_only) return ApiError::refused(Reason::service_not_found);
    if (!known) {
      fail("task_type", Message{"validation.in", {{"attribute", "task_type"}, {"values", "tts, sfx, music, voice_search"}}});
    } else {
      req.task_type = type->get<std::string>();
    }
  }

  if (const auto* id = field("template_id"); id && !id->is_null()) {
    if (!id->is_string() || !is_uuid(id->get_ref<const std::string&>())) {
      fail("template_id", Message{"validation.uuid", {{"attribute", "template_id"}}});
    } else {
      req.template_id = id->get<std::string>();
    }
  } else if (req.task_type == "tts") {
    fail("template_id", Message{"validation.required", {{"attribute", "template_id"}}});
  }

  // sfx and music: the prompt is one order's; task_data sizes the files as POST /orders does.
  if (is_single_shot(req.task_type)) {
    if (text && text->is_string() && count_code_points(req.input_text) > kPromptCapacity) {
      fail("input_text", Message{"validation.max_string", {{"attribute", "input_text"}, {"max", std::to_string(kPromptCapacity)}}});
    }
    if (const auto* data = field("task_data"); data && !data->is_null()) {
      if (!data->is_object()) fail("task_data", Message{"validation.object", {{"attribute", "task_data"}}});
      else req.generative = read_generative_params(req.task_type, *data, errors);
    }
  }

  auto mode = parse_mode("generation_mode", field("generation_mode"));
  if (!mode) fail("generation_mode", mode.error().fields.front().messages.front());
  else req.mode = *mode;

  if (const auto* hash = field("text_hash"); hash && !hash->is_null()) {
    // A client may send the hash it will poll with; a wrong one would make it poll in vain.
    if (!hash->is_string() || !is_text_hash(hash->get_ref<const std::string&>())) {
      fail("text_hash", Message{"validation.text_hash", {{"attribute", "text_hash"}}});
    } else if (text && text->is_string() && hash->get_ref<const std::string&>() != text_hash(req.input_text)) {
      fail("text_hash", Message{"validation.text_hash_mismatch", {{"attribute", "text_hash"}}});
    }
  }
  if (const auto* previous = field("previous_preview_id"); previous && !previous->is_null()) {
    if (!previous->is_string() || !is_text_hash(previous->get_ref<const std::string&>())) {
      fail("previous_preview_id", Message{"validation.preview_id", {{"attribute", "previous_preview_id"}}});
    }
  }
  if (auto error = errors.take()) return *error;
  return req;
}

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
  auto parsed = parse_post(*ctx.json);
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
    const bool background = req.task_type == "tts" && count_code_points(req.input_text) > kSyncPreviewChars;
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
          if (s.options.on_ready) s.options.on_ready(user, id);
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
  const auto query = http::Query::parse(ctx.query);
  FieldErrors errors;
  auto fail = [&](std::string field, Message m) { errors.add(std::move(field), std::move(m)); };
  auto template_id = query.get("template_id");
  if (!template_id || template_id->empty()) fail("template_id", Message{"validation.required", {{"attribute", "template_id"}}});
  else if (!is_uuid(*template_id)) fail("template_id", Message{"validation.uuid", {{"attribute", "template_id"}}});
  auto hash = query.get("text_hash");
  if (!hash || hash->empty()) fail("text_hash", Message{"validation.required", {{"attribute", "text_hash"}}});
  else if (!is_text_hash(*hash)) fail("text_hash", Message{"validation.text_hash", {{"attribute", "text_hash"}}});
  GenerationMode mode = GenerationMode::ordinary;
  if (auto m = query.get("generation_mode"); m && !m->empty()) {
    if (auto parsed = generation_mode_from_string(*m)) mode = *parsed;
    else fail("generation_mode", Message{"validation.in", {{"attribute", "generation_mode"}, {"values", "ordinary, paragraph"}}});
  }
  if (auto error = errors.take()) co_return std::move(*error);
  const UserId user = ctx.principal->user_id;
  const ApiKeyId key = ctx.principal->key_id;
  auto work = [&s, user, key, id_text = std::string(*template_id), hash_text = std::string(*hash),
               mode](db::Resources& r) -> Result<http::Reply> {
    if (auto t = throttle(r.redis, s.options.redis_prefix, "preview-read", key, kReadsPerMinute,
                          std::chrono::system_clock::now());
        !t) {
      return t.error();
    }
    auto settings = resolve_preview_settings(r.db, user, id_text, "tts", mode);
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
  const std::string id(ctx.params.get("previewId").value_or(""));
  const auto query = http::Query::parse(ctx.query);
  auto page = http::integer_param(query, "page", {.fallback = 1, .min = 1, .max = 1'000'000});
  auto per_page = http::integer_param(query, "per_page",
                                      {.fallback = static_cast<std::int64_t>(kDefaultPreviewPerPage), .min = 1,
                                       .max = static_cast<std::int64_t>(kMaxPreviewPerPage)});
  if (auto error = http::combined_error({&page, &per_page})) co_return std::move(*error);
  if (!is_text_hash(id)) co_return ApiError::not_found();  // not an id we could have issued
  const UserId user = ctx.principal->user_id;
  const ApiKeyId key = ctx.principal->key_id;
  auto work = [&s, user, key, id, p = static_cast<std::size_t>(*page),
               pp = static_cast<std::size_t>(*per_page)](db::Resources& r) -> Result<http::Reply> {
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
