// POST /broadcasting/auth. The fields are checked on the I/O thread; an order channel's owner
// check and the grant record run as one blocking job; the signature is computed on the I/O
// thread (one HMAC, no I/O).
#include <optional>
#include <string>
#include <string_view>
#include <utility>

#include <nlohmann/json.hpp>

#include "channel_store.hpp"
#include "mediagen/core/json_writer.hpp"
#include "mediagen/db/blocking_pool.hpp"
#include "mediagen/http/query.hpp"
#include "mediagen/http/router.hpp"
#include "mediagen/realtime/auth_routes.hpp"
#include "mediagen/realtime/channel.hpp"

namespace mediagen::realtime {
namespace {

namespace asio = boost::asio;

// Two short fields: a socket id is at most 41 characters and a channel name 200, three times
// that when percent-encoded; 4 KiB leaves room for the extra parameters clients may add and
// refuses anything larger before it is read.
constexpr std::size_t kAuthBodyLimit = 4 * 1024;

struct Shared {
  db::BlockingPool& pool;
  AuthRouteOptions options;
};

struct AuthRequest {
  std::string socket_id;
  std::string channel_name;
  Channel channel;
};

// Present, absent, or present with a value that is not text (JSON only).
struct RawField {
  std::optional<std::string> text;
  bool not_a_string = false;
};

struct RawFields {
  RawField socket_id;
  RawField channel_name;
};

enum class BodyFormat { form, json };

char lower(char c) { return (c >= 'A' && c <= 'Z') ? static_cast<char>(c - 'A' + 'a') : c; }

bool contains_ci(std::string_view text, std::string_view needle) {
  if (needle.size() > text.size()) return false;
  for (std::size_t i = 0; i + needle.size() <= text.size(); ++i) {
    std::size_t j = 0;
    while (j < needle.size() && lower(text[i + j]) == needle[j]) ++j;
    if (j == needle.size()) return true;
  }
  return false;
}

// pusher-js sends a form, Laravel Echo may send JSON; without a Content-Type the body decides.
Result<BodyFormat> body_format(const http::RequestView& request, std::string_view body) {
  const auto type = request.header("Content-Type");
  if (type && !type->empty()) {
    if (contains_ci(*type, "json")) return BodyFormat::json;
    if (contains_ci(*type, "application/x-www-form-urlencoded")) return BodyFormat::form;
    return ApiError::unsupported_media_type();
  }
  const auto first = body.find_first_not_of(" \t\r\n");
  return first != std::string_view::npos && body[first] == '{' ? BodyFormat::json : BodyFormat::form;
}

RawField form_field(const http::Query& form, std::string_view name) {
  if (auto v = form.get(name)) return RawField{std::string(*v)};
  return RawField{};
}

RawField json_field(const nlohmann::json& body, const char* name) {
  const auto it = body.find(name);
  if (it == body.end() || it->is_null()) return RawField{};
  if (!it->is_string()) return RawField{std::nullopt, true};
  return RawField{it->get<std::string>()};
}

Result<RawFields> read_fields(const http::RequestView& request) {
  const std::string_view body = request.body();
  auto format = body_format(request, body);
  if (!format) return format.error();
  if (*format == BodyFormat::form) {
    const http::Query form = http::Query::parse(body);
    return RawFields{form_field(form, "socket_id"), form_field(form, "channel_name")};
  }
  if (body.find_first_not_of(" \t\r\n") == std::string_view::npos) return RawFields{};
  const auto parsed = nlohmann::json::parse(body, nullptr, /*allow_exceptions=*/false);
  if (parsed.is_discarded()) return ApiError::validation("body", Message{"validation.invalid_json"});
  if (!parsed.is_object()) return ApiError::validation("body", Message{"validation.object", {{"attribute", "body"}}});
  return RawFields{json_field(parsed, "socket_id"), json_field(parsed, "channel_name")};
}

// Both fields are checked, so one 422 names every bad one.
Result<AuthRequest> parse_auth_request(const http::RequestView& request) {
  auto fields = read_fields(request);
  if (!fields) return fields.error();
  std::optional<ApiError> errors;
  auto fail = [&errors](std::string field, Message m) {
    if (!errors) errors = ApiError::validation(std::move(field), std::move(m));
    else errors->add_field(std::move(field), std::move(m));
  };
  // The text of one field, or nullopt after recording why it is unusable.
  auto text_of = [&fail](const RawField& raw, const char* name) -> std::optional<std::string> {
    if (raw.not_a_string) {
      fail(name, Message{"validation.string", {{"attribute", name}}});
      return std::nullopt;
    }
    if (!raw.text || raw.text->empty()) {
      fail(name, Message{"validation.required", {{"attribute", name}}});
      return std::nullopt;
    }
    return raw.text;
  };

  AuthRequest out;
  if (auto socket_id = text_of(fields->socket_id, "socket_id")) {
    if (valid_socket_id(*socket_id)) out.socket_id = std::move(*socket_id);
    else fail("socket_id", Message{"validation.socket_id", {{"attribute", "socket_id"}}});
  }
  if (auto name = text_of(fields->channel_name, "channel_name")) {
    if (auto channel = parse_channel(*name)) {
      out.channel = std::move(*channel);
      out.channel_name = std::move(*name);
    } else {
      fail("channel_name", Message{"validation.channel_name", {{"attribute", "channel_name"}}});
    }
  }
  if (errors) return std::move(*errors);
  return out;
}

http::Reply auth_reply(const ChannelSigner& signer, const AuthRequest& req) {
  JsonWriter body(128);
  body.begin_object().field("auth", std::string_view(signer.sign(req.socket_id, req.channel_name))).end_object();
  // A signature is bound to one socket: a cached copy is of no use to anyone.
  return http::Reply{.data_json = body.take(), .headers = {{"Cache-Control", "no-store"}}, .bare = true};
}

asio::awaitable<Result<http::Reply>> post_auth(Shared& s, http::RequestContext& ctx) {
  auto parsed = parse_auth_request(ctx.request);
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
    auto job = [&s, grant = std::move(grant), order_id = order_channel ? parsed->channel.order_id : std::string()](
                   db::Resources& r) -> bool {
      if (!order_id.empty() && !owns_order(r.db, grant.user, order_id)) return false;
      if (s.options.on_granted) s.options.on_granted(r, grant);
      return true;
    };
    const bool granted = co_await s.pool.run(std::move(job));
    if (!granted) co_return ApiError::forbidden();
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
      .handler = [shared](http::RequestContext& ctx) { return post_auth(*shared, ctx); },
  });
}

}  // namespace mediagen::realtime
