// POST /broadcasting/auth. The fields are checked on the I/O thread; an order channel's owner
// check and the grant record run as one blocking job; the signature is computed on the I/O
// thread (one HMAC, no I/O).
#include <optional>
#include <string>
#include <string_view>
#include <utility>

#include "auth_request.hpp"
#include "channel_store.hpp"
#include "mediagen/core/json_writer.hpp"
#include "mediagen/db/blocking_pool.hpp"
#include "mediagen/http/router.hpp"
#include "mediagen/realtime/auth_routes.hpp"
#include "mediagen/realtime/channel.hpp"

namespace mediagen::realtime {
namespace {

namespace asio = boost::asio;

// A job that failed completes with GrantOutcome{} beside its exception: that value grants nothing.
enum class GrantOutcome { not_recorded, not_owner, granted };

// Two short fields: a socket id is at most 41 characters and a channel name 200, three times
// that when percent-encoded; 4 KiB leaves room for the extra parameters clients may add and
// refuses anything larger before it is read.
constexpr std::size_t kAuthBodyLimit = 4 * 1024;

struct Shared {
  db::BlockingPool& pool;
  AuthRouteOptions options;
};

http::Reply auth_reply(const ChannelSigner& signer, const AuthRequest& req) {
  JsonWriter body(128);
  body.begin_object().field("auth", std::string_view(signer.sign(req.socket_id, req.channel_name))).end_object();
  // A signature is bound to one socket: a cached copy is of no use to anyone.
  return http::Reply{.data_json = body.take(), .headers = {{"Cache-Control", "no-store"}}, .bare = true};
}

// The channel's scope, before the request is counted (Route::authorize_body). A body that does
// not parse goes on to the handler, which refuses it in full.
std::optional<ApiError> channel_scope_refusal(const http::RequestContext& ctx) {
  auto parsed = parse_auth_request(ctx.request.header("Content-Type"), ctx.request.body());
  if (!parsed) return std::nullopt;
  const auth::Scope scope = required_scope(parsed->channel.kind);
  if (!ctx.principal->scopes.allows(scope)) return ApiError::permission_denied(auth::to_string(scope));
  return std::nullopt;
}

asio::awaitable<Result<http::Reply>> post_auth(Shared& s, http::RequestContext& ctx) {
  auto parsed = parse_auth_request(ctx.request.header("Content-Type"), ctx.request.body());
  if (!parsed) co_return parsed.error();
  const auth::Principal& principal = *ctx.principal;

  const auth::Scope scope = required_scope(parsed->channel.kind);
  if (!principal.scopes.allows(scope)) co_return ApiError::permission_denied(auth::to_string(scope));

  const bool order_channel = parsed->channel.kind == ChannelKind::order;
  // Per-user channels are the caller's own or nobody's: no lookup needed.
  if (!order_channel && parsed->channel.user != principal.user_id) co_return ApiError::forbidden();

  if (order_channel || s.options.on_granted) {
    Grant grant{.socket_id = parsed->socket_id,
                .channel = parsed->channel_name,
                .key_id = principal.key_id,
                .user = principal.user_id,
                .key_hash = principal.key_hash,
                .expires_at = principal.expires_at};
    auto job = [&s, grant = std::move(grant), order_id = order_channel ? parsed->channel.order_id : std::nullopt](
                   db::Resources& r) -> GrantOutcome {
      if (order_id && !owns_order(r.db, grant.user, *order_id)) return GrantOutcome::not_owner;
      if (s.options.on_granted && !s.options.on_granted(r, grant)) return GrantOutcome::not_recorded;
      return GrantOutcome::granted;
    };
    const GrantOutcome outcome = co_await s.pool.run(std::move(job));
    if (outcome == GrantOutcome::not_owner) co_return ApiError::forbidden();
    if (outcome == GrantOutcome::not_recorded) co_return ApiError::unavailable("channel grant not published");
  }
  co_return auth_reply(s.options.signer, *parsed);
}

}  // namespace

void register_auth_routes(http::Router& router, db::BlockingPool& pool, AuthRouteOptions options) {
  // Lives as long as the router's handlers: the process.
  auto shared = std::make_shared<Shared>(Shared{pool, std::move(options)});
  // The scope depends on the channel in the body, so the handler checks it.
  router.add_api({
      .method = http::Method::post,
      .pattern = "/broadcasting/auth",
      .access = http::Access::any_key,
      .body_limit = kAuthBodyLimit,
      .json_body = false,
      .authorize_body = channel_scope_refusal,
      .handler = [shared](http::RequestContext& ctx) { return post_auth(*shared, ctx); },
  });
}

}  // namespace mediagen::realtime
