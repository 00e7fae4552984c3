// Bytes from a client connection up to the handler (input: one or more pipelined requests, as
// they arrive on the socket). Mirrors HttpServer's session loop: the head is parsed within 8 KiB,
// the framing checked, the body read within 1 MiB; then the pipeline's own pieces run on each
// request. Properties:
//   - split_target gives a decoded path no longer than the raw one and the query after '?';
//   - the text checks refuse a path or query exactly when it is not clean text on one line;
//   - Query::parse keeps only named parameters; the integer getters answer within their bounds;
//   - resolve_client_ip answers the peer or an address-looking X-Forwarded-For entry (every line of
//     the header, joined in order), which is not a trusted proxy unless it is the leftmost entry;
//   - a time zone that parses formats as a 25-character ISO 8601 time;
//   - the body stage's json_depth is at least the nesting of every body nlohmann accepts (exactly
//     it without NUL bytes), so the depth limit (64) is what bounds the parser.
#include <algorithm>
#include <limits>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <boost/asio/buffer.hpp>
#include <boost/beast/core/string.hpp>
#include <boost/beast/http/parser.hpp>
#include <boost/beast/http/string_body.hpp>
#include <nlohmann/json.hpp>

#include "fuzz_support.hpp"
#include "http/stages/stages.hpp"
#include "mediagen/core/message.hpp"
#include "mediagen/core/percent.hpp"
#include "mediagen/core/time_zone.hpp"
#include "mediagen/core/utf8.hpp"
#include "mediagen/http/message.hpp"
#include "mediagen/http/pipeline.hpp"
#include "mediagen/http/query.hpp"

namespace {

using namespace mediagen;
namespace bhttp = boost::beast::http;
using Parser = bhttp::request_parser<bhttp::string_body>;
using mediagen::fuzz::as_text;

constexpr std::size_t kHeaderLimit = 8 * 1024;       // ServerOptions' default head cap
constexpr std::uint64_t kBodyLimit = 1024 * 1024;    // the largest body cap of any route
constexpr std::size_t kMaxJsonDepth = 64;            // body.cpp's limit
constexpr int kMaxRequests = 8;                      // pipelined requests read from one input

const std::vector<std::string> kTrustedProxies{"127.0.0.1", "10.0.0.2"};

std::optional<std::string_view> header(const Parser& parser, std::string_view name) {
  const auto& h = parser.get();
  auto it = h.find(name);
  if (it == h.end()) return std::nullopt;
  return it->value();
}

// The request as the pipeline sees it (server.cpp's BeastRequest).
class ParsedRequest final : public http::RequestView {
 public:
  explicit ParsedRequest(const Parser& parser) : parser_(parser) {}
  http::Method method() const override { return http::Method::other; }
  std::string_view method_text() const override { return parser_.get().method_string(); }
  std::string_view target() const override { return parser_.get().target(); }
  std::optional<std::string_view> header(std::string_view name) const override { return ::header(parser_, name); }
  std::string_view body() const override { return parser_.get().body(); }

 private:
  const Parser& parser_;
};

// server.cpp's framing check: a Transfer-Encoding other than plain "chunked", or one beside a
// Content-Length, is refused (request smuggling).
bool framing_ok(const Parser& parser) {
  const auto& h = parser.get();
  auto te = h.find(bhttp::field::transfer_encoding);
  if (te == h.end()) return true;
  if (h.find(bhttp::field::content_length) != h.end()) return false;
  return boost::beast::iequals(te->value(), "chunked");
}

// Feeds `in` to the parser until `done` holds; consumes what the parser used. False on a parse
// error; true with `done` false when the bytes ran out (the server would wait for more).
template <class Done>
bool feed(Parser& parser, std::string_view& in, Done done) {
  while (!done() && !in.empty()) {
    boost::beast::error_code ec;
    const std::size_t used = parser.put(boost::asio::buffer(in.data(), in.size()), ec);
    in.remove_prefix(used);
    if (ec == bhttp::error::need_more) return true;
    if (ec) return false;
    if (used == 0) return true;
  }
  return true;
}

// The deepest nesting the parser walks through: duplicate keys may leave a shallower tree.
std::size_t parsed_depth(std::string_view body) {
  using nlohmann::json;
  std::size_t deepest = 0;
  const json::parser_callback_t count = [&deepest](int depth, json::parse_event_t event, json&) {
    if (event == json::parse_event_t::object_start || event == json::parse_event_t::array_start) {
      deepest = std::max(deepest, static_cast<std::size_t>(depth) + 1);
    }
    return true;
  };
  (void)json::parse(body, count, /*allow_exceptions=*/false);
  return deepest;
}

// The body stage of a JSON route (stages/body.cpp read_body), after the body was read.
void body_stage(std::string_view body, std::optional<std::string_view> type) {
  if (body.empty()) return;
  if (type && type->find("json") == std::string_view::npos) return;  // 415
  const std::size_t depth = http::stages::json_depth(body);
  if (depth > kMaxJsonDepth) return;  // 422 validation.too_deep
  const auto parsed = nlohmann::json::parse(body, nullptr, /*allow_exceptions=*/false);
  if (parsed.is_discarded()) return;
  // nlohmann stops at a NUL byte after a complete value ("{}\0[[[" reads as {}), so brackets
  // after one are counted but not parsed: exact only without NUL.
  const std::size_t walked = parsed_depth(body);
  FUZZ_CHECK(walked <= depth);
  if (body.find('\0') == std::string_view::npos) FUZZ_CHECK(walked == depth);
  (void)http::stages::check_json_text(parsed);
}

void client_ip_stage(std::optional<std::string_view> forwarded_for) {
  for (std::string_view peer : {"127.0.0.1", "::ffff:10.0.0.2", "203.0.113.9"}) {
    const std::string ip = http::resolve_client_ip(peer, forwarded_for, kTrustedProxies);
    const std::string_view bare = peer.starts_with("::ffff:") ? peer.substr(7) : peer;
    if (ip == bare) continue;
    FUZZ_CHECK(forwarded_for && ip.size() <= 45 && !ip.empty());
    FUZZ_CHECK(ip.find_first_not_of("0123456789abcdefABCDEF.:") == std::string::npos);
    FUZZ_CHECK(forwarded_for->find(ip) != std::string_view::npos);
    const bool trusted = std::find(kTrustedProxies.begin(), kTrustedProxies.end(), ip) != kTrustedProxies.end();
    if (trusted) FUZZ_CHECK(forwarded_for->find(',') == std::string_view::npos || forwarded_for->find(ip) < forwarded_for->find(','));
  }
}

// What the text checks let through in a path or a query parameter (stages.hpp): clean text on
// one line.
bool clean_line(std::string_view text) {
  return is_clean_text(text) && text.find_first_of("\t\n\r") == std::string_view::npos;
}

// The pipeline's steps before the handler (pipeline.cpp handle, apply_headers, the stages).
void run_pipeline(const Parser& parser) {
  const ParsedRequest request(parser);
  http::RequestContext ctx{request};
  const std::string_view target = request.target();
  http::stages::split_target(target, ctx.path, ctx.query);
  const std::string& path = ctx.path;
  const std::string_view query = ctx.query;
  FUZZ_CHECK(path.size() <= target.size());
  FUZZ_CHECK(query.empty() || target.substr(target.find('?') + 1) == query);
  FUZZ_CHECK(http::stages::check_path_text(ctx).has_value() == !clean_line(path));

  const auto q = http::Query::parse(query);
  bool query_clean = true;
  for (const auto& item : q.items()) {
    FUZZ_CHECK(!item.name.empty());
    query_clean = query_clean && clean_line(item.name) && clean_line(item.value);
  }
  FUZZ_CHECK(http::stages::check_query_text(ctx).has_value() == !query_clean);
  const http::IntegerBounds page{.fallback = 1, .min = 1, .max = std::nullopt};
  const http::IntegerBounds per_page{.fallback = 15, .min = 1, .max = 100};
  const auto p = http::integer_param(q, "page", page);
  const auto pp = http::integer_param(q, "per_page", per_page);
  FUZZ_CHECK(!p || *p >= 1);
  FUZZ_CHECK(!pp || (*pp >= 1 && *pp <= 100));
  (void)http::combined_error({&p, &pp});
  (void)q.all("task_type");
  (void)mediagen::percent_decode(path, false);

  if (auto l = header(parser, "X-Locale")) (void)locale_code(parse_locale(*l));
  if (auto z = header(parser, "X-Timezone")) {
    if (auto tz = TimeZone::parse(*z)) FUZZ_CHECK(tz->format(TimePoint{}).size() == 25);
  }
  // Every X-Forwarded-For line, joined in order as the pipeline joins them.
  std::vector<std::string_view> lines;
  for (auto [it, end] = parser.get().equal_range("X-Forwarded-For"); it != end; ++it) lines.push_back(it->value());
  const std::string joined = http::join_header_lines(lines);
  client_ip_stage(lines.empty() ? std::nullopt : std::optional<std::string_view>(joined));
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  std::string_view in = as_text(data, size);
  for (int n = 0; n < kMaxRequests && !in.empty(); ++n) {
    Parser parser;
    parser.header_limit(kHeaderLimit);
    parser.body_limit(std::numeric_limits<std::uint64_t>::max());
    const std::size_t before = in.size();
    if (!feed(parser, in, [&] { return parser.is_header_done(); })) return 0;
    // The cap is on the whole head however it arrived (server.cpp): 431.
    if (before - in.size() > kHeaderLimit) return 0;
    if (!parser.is_header_done() || !framing_ok(parser)) return 0;
    run_pipeline(parser);

    if (auto n_declared = parser.content_length(); n_declared && *n_declared > kBodyLimit) return 0;  // 413
    parser.body_limit(kBodyLimit);
    if (!feed(parser, in, [&] { return parser.is_done(); }) || !parser.is_done()) return 0;
    body_stage(parser.get().body(), header(parser, "Content-Type"));
    if (!parser.keep_alive()) return 0;
  }
  return 0;
}
