#pragma once
#include <cstddef>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <boost/asio/awaitable.hpp>
#include <nlohmann/json_fwd.hpp>

#include "mediagen/access/principal.hpp"
#include "mediagen/core/api_error.hpp"
#include "mediagen/core/time_zone.hpp"
#include "mediagen/http/message.hpp"
#include "mediagen/http/multipart.hpp"

namespace mediagen::http {

// Who may call a route: anyone, any active key, or a key holding one permission.
enum class Access { open, any_key, scope };

// Where a route's key comes from: X-API-KEY (the spec's API, section 5), or
// "Authorization: Bearer <key>" on a surface that speaks another API's dialect (the
// OpenAI-compatible speech routes), where clients can send nothing else; "xi-api-key" on the
// ElevenLabs-compatible surface; either of the last two on a path both surfaces answer
// (GET /v1/models): xi-api-key when the request carries it, else the Bearer key.
enum class KeyHeader { x_api_key, bearer, xi_api_key, bearer_or_xi_api_key };

struct Route;

struct PathParams {
  std::vector<std::pair<std::string_view, std::string_view>> items;
  std::optional<std::string_view> get(std::string_view name) const {
    for (const auto& [k, v] : items) {
      if (k == name) return v;
    }
    return std::nullopt;
  }
};

// Typed per-request data the pipeline fills stage by stage.
struct RequestContext {
  const RequestView& request;
  std::string path;   // percent-decoded, without the query
  std::string_view query;
  std::string client_ip;
  const Route* route = nullptr;
  PathParams params;
  std::shared_ptr<const auth::Principal> principal;
  Locale locale = Locale::en;
  TimeZone tz = TimeZone::utc();
  const nlohmann::json* json = nullptr;  // parsed body of JSON routes
  const MultipartForm* form = nullptr;    // the parts of a multipart/form-data body (multipart routes)
  Headers response_headers;

  std::string time(TimePoint t) const { return tz.format(t); }
};

using Handler = std::function<boost::asio::awaitable<Result<Reply>>(RequestContext&)>;

struct Route {
  Method method = Method::get;
  std::string pattern;  // "/orders/{order}"; API routes are relative to the API prefix
  Access access = Access::scope;
  auth::Scope scope = auth::Scope::profile_read;
  std::size_t body_limit = 0;  // bytes; 0 means the route takes no body
  bool json_body = false;
  // Also takes multipart/form-data (uploads): such a body is streamed through the parser within
  // `multipart`'s limits and lands in ctx.form; any other body is JSON as above. body_limit
  // should then be multipart.max_total_bytes.
  bool multipart_body = false;
  MultipartLimits multipart;
  // The cap of a JSON body on such a route, far below an upload's (0: body_limit).
  std::size_t json_body_limit = 0;
  // The query is a signed token the handler verifies as a whole (a download link): any change to
  // it is a bad signature (403), so the query text check does not answer for it.
  bool signed_query = false;
  // Another method on this path answers as an unknown path (404 endpoint_not_found) rather than
  // 405: what a key must never do there (buy a subscription, change the profile) does not exist.
  bool other_methods_unknown = false;
  // A route that exists only for some accounts (e.g. the wallet's, while switched on): asked
  // after authentication and before the permission check. False answers exactly as an unknown
  // path does, but without counting toward the ban ladder: the path is real, so a client that
  // keeps asking for it is not probing. Empty: the route exists for every key.
  std::function<boost::asio::awaitable<bool>(RequestContext&)> exists_for;
  // A route whose permission depends on its body (the channel of /broadcasting/auth): checked
  // once the body is read and before the request counts against the key's request windows, so
  // that its 403 spends nothing, as on every other route (spec 5.6). nullopt: go on.
  std::function<std::optional<ApiError>(const RequestContext&)> authorize_body;
  KeyHeader key_header = KeyHeader::x_api_key;
  // Writes the route's refusals (from any stage after the route matched) in another API's error
  // shape (which may depend on the request's headers); empty: the spec's envelope.
  std::function<Response(const ApiError&, const RequestContext&)> render_error;
  Handler handler;
  std::size_t metrics_index = 0;  // set by the router
};

// An id of the path parsed into its type (OrderId, TemplateId, ... of core/uuid_id.hpp): one that
// does not parse names nothing, 404 like an id that names nothing of the caller's.
template <class Id>
Result<Id> path_id(const RequestContext& ctx, std::string_view name) {
  auto id = Id::parse(ctx.params.get(name).value_or(""));
  if (!id) return ApiError::not_found();
  return std::move(*id);
}

// A GET of the API that needs `scope`, answered by `handler`: the shape of every read route.
inline Route scoped_get(std::string pattern, auth::Scope scope, Handler handler) {
  return Route{
      .method = Method::get,
      .pattern = std::move(pattern),
      .access = Access::scope,
      .scope = scope,
      .handler = std::move(handler),
  };
}

}  // namespace mediagen::http
