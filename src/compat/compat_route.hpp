#pragma once
// A route of a compatible surface: from the root, opened by one permission, its key read from the
// surface's own header and its refusals written in the surface's own shape.
#include <string>
#include <utility>

#include "mediagen/http/route.hpp"

namespace mediagen::compat {

struct CompatRoute {
  http::Method method;
  std::string pattern;
  auth::Scope scope;
  std::size_t body_limit = 0;  // 0: no body; else a JSON body of at most this many bytes
  http::KeyHeader key;
  http::Response (*render_error)(const ApiError&, const http::RequestContext&);
};

inline http::Route compat_route(CompatRoute r, http::Handler handler) {
  return http::Route{
      .method = r.method,
      .pattern = std::move(r.pattern),
      .access = http::Access::scope,
      .scope = r.scope,
      .body_limit = r.body_limit,
      .json_body = r.body_limit > 0,
      .key_header = r.key,
      .render_error = r.render_error,
      .handler = std::move(handler),
  };
}

}  // namespace mediagen::compat
