// Requests driven through the real Router and Pipeline (src/http/pipeline.cpp and every stage),
// parsed from raw bytes by Beast as the server parses them. The wiring is fixed and needs no
// database: routes of every kind the API has (open, any key, scope, path parameters, JSON,
// multipart, signed query, Bearer key, other methods unknown) with handlers that only check
// what they were given; two keys already in the key cache (all permissions; profile only); one
// banned address; a blocking pool whose PostgreSQL and Redis refuse connections, so that an
// unknown path still answers 404 (its miss uncounted) and an unknown well-formed key 503.
// Input: up to 4 pipelined requests; the peer is a trusted proxy, so X-Forwarded-For names the
// client. Properties:
//   - nothing crashes, leaks or hangs, and no request answers 500 (a contained defect);
//   - every answer carries X-Timezone; every refusal has the spec's shape (422 {message,
//     errors}; otherwise success false with a message, reason = error_code when present);
//   - 405 names the other methods in Allow, never the one asked;
//   - a handler runs only for a matched route, with a key holding its permission, on a path and
//     query of clean text, with the body its route reads (a JSON value of clean text, or a form).
#include <memory>
#include <optional>
#include <string>

#include <boost/asio/co_spawn.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/beast/http/parser.hpp>
#include <nlohmann/json.hpp>

#include "fuzz_support.hpp"
#include "http/wire.hpp"
#include "mediagen/auth/key_cache.hpp"
#include "mediagen/auth/unknown_key_budget.hpp"
#include "mediagen/auth/keys.hpp"
#include "mediagen/cache/ban_ladder.hpp"
#include "mediagen/cache/local_rate.hpp"
#include "mediagen/core/clean_json.hpp"
#include "mediagen/core/counters.hpp"
#include "mediagen/core/crypto.hpp"
#include "mediagen/core/log.hpp"
#include "mediagen/core/utf8.hpp"
#include "mediagen/db/blocking_pool.hpp"
#include "mediagen/http/metrics.hpp"
#include "mediagen/http/pipeline.hpp"
#include "mediagen/http/router.hpp"

namespace {

using namespace mediagen;
namespace asio = boost::asio;
namespace bhttp = boost::beast::http;
using http::Access;
using http::Method;

constexpr std::size_t kHeaderLimit = 8 * 1024;     // ServerOptions' default head cap
constexpr std::uint64_t kBodyLimit = 1024 * 1024;  // the parser's cap before a route is known
constexpr int kMaxRequests = 4;
constexpr std::string_view kPeer = "10.0.0.2";     // a trusted proxy
constexpr std::string_view kBanned = "198.51.100.9";
const std::string kFullKey = "mg_" + std::string(43, 'A');
const std::string kProfileKey = "mg_" + std::string(43, 'B');

// What the last handler saw; reset before each request.
struct Seen {
  bool ran = false;
  const http::Route* route = nullptr;
};
Seen seen;

asio::awaitable<Result<http::Reply>> check_handler(http::RequestContext& ctx) {
  seen.ran = true;
  seen.route = ctx.route;
  FUZZ_CHECK(ctx.route != nullptr);
  FUZZ_CHECK(is_valid_utf8(ctx.path));
  if (ctx.route->access != Access::open) FUZZ_CHECK(ctx.principal != nullptr);
  if (ctx.route->access == Access::scope) FUZZ_CHECK(ctx.principal->scopes.allows(ctx.route->scope));
  for (const auto& [name, value] : ctx.params.items) FUZZ_CHECK(!value.empty() && value.find('/') == std::string_view::npos);
  if (ctx.route->json_body) {
    FUZZ_CHECK((ctx.json != nullptr) != (ctx.form != nullptr));
    if (ctx.json) FUZZ_CHECK(!unclean_json_field(*ctx.json));
    if (ctx.form) FUZZ_CHECK(ctx.route->multipart_body);
  }
  co_return http::Reply{.status = ctx.route->method == Method::post ? 201 : 200};
}

http::Route route(Method method, std::string pattern, Access access, auth::Scope scope = auth::Scope::profile_read) {
  return http::Route{.method = method, .pattern = std::move(pattern), .access = access, .scope = scope,
                     .handler = check_handler};
}

void add_routes(http::Router& router) {
  router.add_root(route(Method::get, "/healthz", Access::open));
  router.add_api(route(Method::get, "/user", Access::any_key));
  router.add_api(route(Method::get, "/orders", Access::scope, auth::Scope::orders_read));
  router.add_api(route(Method::get, "/orders/{order}", Access::scope, auth::Scope::orders_read));
  router.add_api(route(Method::get, "/orders/{order}/items/{item}/text", Access::scope, auth::Scope::orders_read));
  auto create = route(Method::post, "/orders", Access::scope, auth::Scope::orders_write);
  create.json_body = create.multipart_body = true;
  create.multipart.max_file_bytes = 4096;
  create.multipart.max_total_bytes = 8192;
  create.multipart.max_parts = 8;
  create.json_body_limit = 4096;
  create.body_limit = create.multipart.max_total_bytes;
  router.add_api(std::move(create));
  auto preview = route(Method::post, "/orders/chunks/preview", Access::scope, auth::Scope::orders_read);
  preview.json_body = true;
  preview.body_limit = 4096;
  router.add_api(std::move(preview));
  for (Method m : {Method::put, Method::patch}) {
    auto update = route(m, "/templates/{template}", Access::scope, auth::Scope::templates_write);
    update.json_body = true;
    update.body_limit = 2048;
    router.add_api(std::move(update));
  }
  router.add_api(route(Method::del, "/templates/{template}", Access::scope, auth::Scope::templates_write));
  auto link = route(Method::get, "/files/{token}", Access::open);
  link.signed_query = true;
  router.add_api(std::move(link));
  auto buy = route(Method::post, "/subscriptions/{plan}/purchase", Access::scope, auth::Scope::billing_read);
  buy.other_methods_unknown = true;
  router.add_api(std::move(buy));
  auto speech = route(Method::post, "/v1/audio/speech", Access::any_key);
  speech.key_header = http::KeyHeader::bearer;
  speech.json_body = true;
  speech.body_limit = 4096;
  router.add_root(std::move(speech));
}

std::shared_ptr<const auth::Principal> principal(std::string_view key, bool all) {
  auto p = std::make_shared<auth::Principal>();
  p->key_id = ApiKeyId{all ? 1 : 2};
  p->user_id = UserId{1};
  p->key_hash = crypto::sha256(key);
  if (all) {
    for (std::size_t i = 0; i < auth::kScopeCount; ++i) p->scopes.add(static_cast<auth::Scope>(i));
  } else {
    p->scopes.add(auth::Scope::profile_read);
  }
  return p;
}

db::BlockingPoolOptions pool_options() {
  db::BlockingPoolOptions o;
  o.threads = 1;
  o.request_deadline = std::chrono::milliseconds(2000);
  o.limits.connect_timeout_seconds = 1;
  // Refused at once; without TLS or GSS, libpq keeps no OpenSSL state for LeakSanitizer to report.
  o.database_url = "postgresql://mediagen@127.0.0.1:1/none?sslmode=disable&gssencmode=disable";
  o.redis.url = "redis://127.0.0.1:1/0";
  o.redis.connect_timeout = std::chrono::milliseconds(200);
  return o;
}

// The fixed wiring, made once: what App wires for the public listener, without a database.
struct Wiring {
  asio::io_context ioc;
  SystemClock clock;
  InfraCounters counters;
  http::Router router{"/api"};
  http::Metrics metrics{counters};
  cache::BanList bans;
  cache::BanLadder ladder{cache::BanLadderOptions{}};
  auth::KeyCache keys{Seconds{1'000'000'000}, clock};
  auth::UnknownKeyBudget unknown_keys{60};
  db::BlockingPool pool{pool_options(), counters};
  cache::LocalRateWindows local_rates{1};
  std::unique_ptr<http::Pipeline> pipeline;

  Wiring() {
    log::init("error");  // the refused connections of the pool would fill the log
    add_routes(router);
    metrics.set_routes(router.patterns());
    keys.put(crypto::sha256(kFullKey), principal(kFullKey, true), keys.begin_read());
    keys.put(crypto::sha256(kProfileKey), principal(kProfileKey, false), keys.begin_read());
    bans.put(std::string(kBanned), cache::Ban{.until = clock.now() + std::chrono::hours(24 * 365 * 50), .step = 1});
    http::PipelineOptions options;
    options.trusted_proxies = {std::string(kPeer)};
    options.docs_url = "https://docs.example/";
    options.developers_url = "https://developers.example/";
    pipeline = std::make_unique<http::Pipeline>(
        http::PipelineDeps{router, metrics, clock, bans, ladder, keys, unknown_keys, pool, counters, local_rates}, options);
  }
};

// One parsed request as the server's exchange presents it (session_io.hpp): the body is already
// in the parser, read within the route's limit.
class FuzzExchange final : public http::Exchange {
 public:
  explicit FuzzExchange(http::wire::Parser& parser) : parser_(parser), view_(parser) {}
  const http::RequestView& request() const override { return view_; }
  std::string_view peer_ip() const override { return kPeer; }
  std::optional<std::uint64_t> content_length() const override {
    if (auto n = parser_.content_length()) return *n;
    return std::nullopt;
  }
  bool has_body() const override { return parser_.chunked() || parser_.content_length().value_or(0) > 0; }
  asio::awaitable<http::BodyStatus> read_body(std::size_t limit) override {
    co_return parser_.get().body().size() > limit ? http::BodyStatus::too_large : http::BodyStatus::ok;
  }

 private:
  http::wire::Parser& parser_;
  http::wire::BeastRequest view_;
};

std::optional<std::string_view> header_of(const http::Response& r, std::string_view name) {
  for (const auto& [k, v] : r.headers) {
    if (boost::beast::iequals(k, name)) return std::string_view(v);
  }
  return std::nullopt;
}

void check_response(const http::Response& r, Method method) {
  FUZZ_CHECK(r.status != 500);
  FUZZ_CHECK(header_of(r, "X-Timezone").has_value());
  if (r.status < 400) {
    FUZZ_CHECK(seen.ran);
    return;
  }
  FUZZ_CHECK(!seen.ran);
  const auto body = nlohmann::json::parse(r.body, nullptr, false);
  FUZZ_CHECK(body.is_object());
  if (r.status == 422) {
    FUZZ_CHECK(body.size() == 2 && body["message"].is_string() && body["errors"].is_object() && !body["errors"].empty());
    return;
  }
  FUZZ_CHECK(body.contains("success") && body["success"] == false && body["message"].is_string());
  if (body.contains("reason")) FUZZ_CHECK(body["reason"] == body["error_code"]);
  if (r.status == 405) {
    auto allow = header_of(r, "Allow");
    FUZZ_CHECK(allow && !allow->empty());
    if (method != Method::other) FUZZ_CHECK(allow->find(http::to_string(method)) == std::string_view::npos);
  }
}

// Runs the pipeline on one request until it answers. One io_context for every input, as the
// server's outlives its requests: the pool may release a finished job's timer a moment later.
http::Response answer(Wiring& w, http::Exchange& exchange) {
  std::optional<http::Response> response;
  w.ioc.restart();
  asio::co_spawn(w.ioc, w.pipeline->handle(exchange), [&](std::exception_ptr e, http::Response r) {
    FUZZ_CHECK(!e);  // the pipeline's barrier catches everything
    response = std::move(r);
  });
  w.ioc.run();
  FUZZ_CHECK(response.has_value());
  return std::move(*response);
}

}  // namespace

// One block of OpenSSL's own state (904 bytes, allocated once by libcrypto, whose frames cannot be
// unwound) is still held when the process exits: the libpq and hiredis attempts of the pool's
// thread. Suppressed here only; the targets that use src/core/crypto.cpp alone run without it.
extern "C" const char* __lsan_default_suppressions() { return "leak:CRYPTO_zalloc\n"; }

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  static Wiring wiring;
  std::string_view in = fuzz::as_text(data, size);
  for (int i = 0; i < kMaxRequests && !in.empty(); ++i) {
    http::wire::Parser parser;
    parser.header_limit(kHeaderLimit);
    parser.body_limit(kBodyLimit);
    parser.eager(true);
    boost::beast::error_code ec;
    while (!parser.is_done() && !in.empty()) {
      const std::size_t used = parser.put(asio::buffer(in.data(), in.size()), ec);
      in.remove_prefix(used);
      if (ec == bhttp::error::need_more) {
        ec = {};
        if (used == 0) break;
        continue;
      }
      if (ec || used == 0) break;
    }
    if (ec || !parser.is_done()) {
      // What the server answers a request it cannot read, without a pipeline.
      const http::Response refused = wiring.pipeline->refuse(ec == bhttp::error::header_limit ? 431 : 400);
      FUZZ_CHECK(refused.status == 400 || refused.status == 431);
      return 0;
    }
    if (!http::wire::framing_ok(parser)) return 0;  // refused with 400 before the pipeline
    seen = {};
    FuzzExchange exchange(parser);
    const http::Response r = answer(wiring, exchange);
    check_response(r, exchange.request().method());
  }
  return 0;
}
