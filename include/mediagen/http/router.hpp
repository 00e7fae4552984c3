#pragma once
// Routes are data, declared by each domain; the router answers NotFound, MethodNotAllowed
// (with the Allow list) or a match with its path parameters.
#include <deque>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include "mediagen/http/route.hpp"

namespace mediagen::http {

struct RouteMatch {
  const Route* route;
  PathParams params;
};
struct MethodNotAllowed {
  std::string allow;
};
struct NotFound {};

using MatchResult = std::variant<RouteMatch, MethodNotAllowed, NotFound>;

class Router {
 public:
  explicit Router(std::string api_prefix) : api_prefix_(std::move(api_prefix)) {}

  const std::string& api_prefix() const { return api_prefix_; }
  // A route of the public API, under the prefix.
  Route& add_api(Route route);
  // A route outside the prefix (e.g. /healthz).
  Route& add_root(Route route);

  MatchResult match(Method method, std::string_view path) const;
  std::vector<std::string> patterns() const;  // full patterns, in metrics-index order

 private:
  struct Compiled {
    Route route;
    std::string full_pattern;
    std::vector<std::string> segments;  // "{x}" marks a parameter
  };
  Route& add(Route route, std::string full_pattern);
  std::string api_prefix_;
  std::deque<Compiled> routes_;  // stable addresses
};

}  // namespace mediagen::http
