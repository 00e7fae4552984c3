#include "mediagen/http/pipeline.hpp"

#include <chrono>

#include "mediagen/cache/redis.hpp"
#include "mediagen/core/contain.hpp"
#include "mediagen/core/log.hpp"
#include "mediagen/db/connection.hpp"
#include "mediagen/http/envelope.hpp"
#include "stages/stages.hpp"

namespace mediagen::http {

namespace {

// The route's own error shape where it has one (a compatible surface), else the envelope.
Response refusal_response(const RequestContext& ctx, const ApiError& e) {
  if (ctx.route && ctx.route->render_error) return ctx.route->render_error(e, ctx);
  return error_response(e, ctx.locale, ctx.tz);
}

void apply_headers(const RequestView& request, RequestContext& ctx) {
  if (auto l = request.header("X-Locale")) ctx.locale = parse_locale(*l);
  if (auto z = request.header("X-Timezone")) {
    if (auto tz = TimeZone::parse(*z)) ctx.tz = *tz;
  }
}

}  // namespace

boost::asio::awaitable<Response> Pipeline::handle(Exchange& exchange) {
  const auto started = std::chrono::steady_clock::now();
  const RequestView& request = exchange.request();
  RequestContext ctx{request};
  Response response;
  bool reported = false;  // a contained failure is logged once, where it is caught
  try {
    stages::split_target(request.target(), ctx.path, ctx.query);
    ctx.client_ip = stages::client_ip(exchange, options_.trusted_proxies);
    apply_headers(request, ctx);
    response = co_await run(exchange, ctx);
  } catch (const ApiError& e) {
    response = refusal_response(ctx, e);
  } catch (const db::Unavailable& e) {
    log::error("postgresql unavailable", {{"error", e.what()}});
    response = refusal_response(ctx, ApiError::unavailable(e.what()));
  } catch (const cache::RedisError& e) {
    log::error("redis unavailable", {{"error", e.what()}});
    response = refusal_response(ctx, ApiError::unavailable(e.what()));
  } catch (...) {
    // Anything else is a defect: it ends this request alone, as a 500 in the envelope.
    report_contained(&deps_.counters, Boundary::request, std::current_exception(),
                     {{"method", request.method_text()}, {"path", std::string_view(ctx.path)}});
    reported = true;
    response = refusal_response(ctx, ApiError::internal_error("unexpected failure"));
  }
  response.headers.insert(response.headers.end(), ctx.response_headers.begin(), ctx.response_headers.end());
  response.headers.emplace_back("X-Timezone", std::string(ctx.tz.name()));

  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
  deps_.metrics.observe(ctx.route ? ctx.route->metrics_index : deps_.metrics.none_index(), response.status, seconds);
  if (response.status >= 500 && !reported) {
    log::warn("request answered with a server error",
              {{"status", response.status}, {"path", std::string_view(ctx.path)}});
  }
  co_return response;
}

// Stages that need no I/O run as plain calls; only a cache miss, a rate window, a body or an
// unknown path suspends the coroutine.
boost::asio::awaitable<Response> Pipeline::run(Exchange& exchange, RequestContext& ctx) {
  const TimePoint now = deps_.clock.now();
  const bool explicit_locale = ctx.request.header("X-Locale").has_value();
  auto fail = [&](const ApiError& e) { return refusal_response(ctx, e); };

  if (auto banned = stages::check_ip_ban(ctx, deps_.bans, deps_.ladder, now)) co_return fail(*banned);

  if (auto refusal = stages::check_path_text(ctx)) co_return fail(*refusal);
  std::optional<ApiError> unmatched;
  if (!stages::match_route(ctx, deps_.router, unmatched)) {
    if (unmatched) co_return fail(*unmatched);
    stages::NotFoundInfo info{options_.docs_url, options_.developers_url};
    ApiError not_found = co_await stages::unknown_path(ctx, deps_.pool, deps_.bans, deps_.ladder, now, info);
    co_return fail(not_found);
  }
  if (auto r = stages::check_body_size(ctx, exchange); !r) co_return fail(r.error());

  if (ctx.route->access != Access::open) {
    auto authenticated = stages::authenticate_cached(ctx, deps_.keys, deps_.counters, now);
    if (!authenticated) {
      Result<void> slow = co_await stages::authenticate_slow(ctx, deps_.keys, deps_.unknown_keys, deps_.pool,
                                                                 deps_.counters, now);
      authenticated = std::move(slow);
    }
    if (!*authenticated) co_return fail(authenticated->error());
    // Before the account's language is applied: an unknown path answers before the key is read.
    if (ctx.route->exists_for && !co_await ctx.route->exists_for(ctx)) {
      stages::NotFoundInfo info{options_.docs_url, options_.developers_url};
      co_return fail(co_await stages::hidden_path(ctx, deps_.pool, deps_.ladder, info));
    }
    // Without X-Locale, messages follow the account's language.
    if (!explicit_locale) ctx.locale = ctx.principal->user_locale;
    if (auto r = stages::authorize(ctx); !r) co_return fail(r.error());
    if (!ctx.route->authorize_body && ctx.principal->limits.requests.any()) {
      if (auto r = co_await stages::rate_limit(ctx, deps_.pool, deps_.local_rates, options_.redis_prefix, now); !r) {
        co_return fail(r.error());
      }
    }
  }

  if (!ctx.route->signed_query) {
    if (auto r = stages::check_query_text(ctx)) co_return fail(*r);
  }
  stages::BodyTarget body;
  if (exchange.has_body() || ctx.route->json_body) {
    if (auto r = co_await stages::read_body(ctx, exchange, body, uploads_); !r) co_return fail(r.error());
  }
  // The permission read from the body, then the request windows that the others took above.
  if (ctx.route->authorize_body && ctx.principal) {
    if (auto refusal = ctx.route->authorize_body(ctx)) co_return fail(*refusal);
    if (ctx.principal->limits.requests.any()) {
      if (auto r = co_await stages::rate_limit(ctx, deps_.pool, deps_.local_rates, options_.redis_prefix, now); !r) {
        co_return fail(r.error());
      }
    }
  }

  auto result = co_await ctx.route->handler(ctx);
  if (!result) co_return fail(result.error());
  co_return success_response(std::move(*result), ctx.locale);
}

Response Pipeline::refuse(int status) {
  ApiError e = status == 431 ? ApiError::header_too_large() : ApiError::bad_request();
  deps_.metrics.observe(deps_.metrics.none_index(), e.status, 0.0);
  return error_response(e, Locale::en, TimeZone::utc());
}

}  // namespace mediagen::http
