#include "mediagen/http/router.hpp"

namespace mediagen::http {
namespace {

// Calls fn(segment) for each non-empty segment; stops and returns false when fn does.
template <class F>
bool for_each_segment(std::string_view path, F&& fn) {
  for (std::size_t i = 0; i < path.size();) {
    if (path[i] == '/') {
      ++i;
      continue;
    }
    std::size_t j = path.find('/', i);
    if (j == std::string_view::npos) j = path.size();
    if (!fn(path.substr(i, j - i))) return false;
    i = j;
  }
  return true;
}

bool is_param(std::string_view segment) {
  return segment.size() > 2 && segment.front() == '{' && segment.back() == '}';
}

}  // namespace

std::string_view to_string(Method method) {
  switch (method) {
    case Method::get: return "GET";
    case Method::head: return "HEAD";
    case Method::post: return "POST";
    case Method::put: return "PUT";
    case Method::patch: return "PATCH";
    case Method::del: return "DELETE";
    case Method::options: return "OPTIONS";
    case Method::other: return "OTHER";
  }
  return "OTHER";
}

Route& Router::add_api(Route route) {
  std::string full = api_prefix_ == "/" ? route.pattern : api_prefix_ + route.pattern;
  return add(std::move(route), std::move(full));
}

Route& Router::add_root(Route route) {
  std::string full = route.pattern;
  return add(std::move(route), std::move(full));
}

Route& Router::add(Route route, std::string full_pattern) {
  Compiled c{std::move(route), std::move(full_pattern), {}};
  for_each_segment(c.full_pattern, [&](std::string_view s) {
    c.segments.emplace_back(s);
    return true;
  });
  c.route.metrics_index = routes_.size();
  routes_.push_back(std::move(c));
  return routes_.back().route;
}

MatchResult Router::match(Method method, std::string_view path) const {
  // Paths are short and routes few: a linear scan without allocation beats a trie here.
  std::string_view segs[24];
  std::size_t n = 0;
  bool fits = for_each_segment(path, [&](std::string_view s) {
    if (n == std::size(segs)) return false;
    segs[n++] = s;
    return true;
  });
  if (!fits) return NotFound{};
  const Method wanted = method == Method::head ? Method::get : method;
  // Among the routes whose shape matches, the one with the most literal segments wins, so
  // "/orders/stats" is reachable beside "/orders/{order}" whatever the registration order.
  const Compiled* best = nullptr;
  std::size_t best_literals = 0;
  std::string allow;
  for (const auto& c : routes_) {
    if (c.segments.size() != n) continue;
    bool ok = true;
    std::size_t literals = 0;
    for (std::size_t i = 0; i < n && ok; ++i) {
      if (is_param(c.segments[i])) continue;
      ok = c.segments[i] == segs[i];
      ++literals;
    }
    if (!ok) continue;
    if (c.route.method == wanted) {
      if (!best || literals > best_literals) {
        best = &c;
        best_literals = literals;
      }
      continue;
    }
    if (c.route.other_methods_unknown) continue;
    if (allow.find(to_string(c.route.method)) != std::string::npos) continue;
    if (!allow.empty()) allow += ", ";
    allow += to_string(c.route.method);
    if (c.route.method == Method::get) allow += ", HEAD";
  }
  if (best) {
    RouteMatch m{&best->route, {}};
    for (std::size_t i = 0; i < n; ++i) {
      if (is_param(best->segments[i])) {
        std::string_view name(best->segments[i]);
        m.params.items.emplace_back(name.substr(1, name.size() - 2), segs[i]);
      }
    }
    return m;
  }
  if (!allow.empty()) return MethodNotAllowed{std::move(allow)};
  return NotFound{};
}

std::vector<std::string> Router::patterns() const {
  std::vector<std::string> out;
  for (const auto& c : routes_) out.push_back(std::string(to_string(c.route.method)) + " " + c.full_pattern);
  return out;
}

}  // namespace mediagen::http
