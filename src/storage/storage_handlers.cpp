// HTTP of storage (spec 4.3): issue a signed link, serve it. The ownership check runs on the
// blocking pool (PostgreSQL); signature and expiry are checked on the I/O thread (no I/O); a
// download needs no database: the file is opened and read piece by piece on the read pool.
#include <stdexcept>

#include <nlohmann/json.hpp>

#include "byte_range.hpp"
#include "download_link.hpp"
#include "file_body.hpp"
#include "media_type.hpp"
#include "read_pool.hpp"
#include "mediagen/core/json_writer.hpp"
#include "mediagen/db/blocking_pool.hpp"
#include "mediagen/http/router.hpp"
#include "mediagen/storage/routes.hpp"
#include "storage_errors.hpp"

namespace mediagen::storage {
namespace {

namespace asio = boost::asio;

// {"path": "...", "download": true} with a key of at most kMaxKeyBytes: 8 KiB leaves room for
// escapes and whitespace and refuses anything larger before it is read.
constexpr std::size_t kUrlBodyLimit = 8 * 1024;

struct Shared {
  Shared(db::BlockingPool& p, StorageOptions o, std::string e)
      : pool(p), options(std::move(o)), endpoint(std::move(e)), reads(options.read_threads) {}
  db::BlockingPool& pool;
  StorageOptions options;
  std::string endpoint;  // absolute URL of the download route
  ReadPool reads;
};

struct UrlRequest {
  std::string path;
  bool download = false;
};

std::int64_t unix_seconds(TimePoint t) {
  return std::chrono::duration_cast<std::chrono::seconds>(t.time_since_epoch()).count();
}

Result<UrlRequest> parse_url_request(const nlohmann::json& body) {
  if (!body.is_object()) return ApiError::validation("body", Message{"validation.object", {{"attribute", "body"}}});
  std::optional<ApiError> errors;
  auto fail = [&](std::string field, Message m) {
    if (!errors) errors = ApiError::validation(std::move(field), std::move(m));
    else errors->add_field(std::move(field), std::move(m));
  };
  UrlRequest req;
  const auto path = body.find("path");
  if (path == body.end() || path->is_null() || (path->is_string() && path->get_ref<const std::string&>().empty())) {
    fail("path", Message{"validation.required", {{"attribute", "path"}}});
  } else if (!path->is_string()) {
    fail("path", Message{"validation.string", {{"attribute", "path"}}});
  } else if (!is_valid_key(path->get_ref<const std::string&>())) {
    fail("path", Message{"validation.storage_path", {{"attribute", "path"}}});
  } else {
    req.path = path->get<std::string>();
  }
  if (const auto download = body.find("download"); download != body.end() && !download->is_null()) {
    if (!download->is_boolean()) fail("download", Message{"validation.boolean", {{"attribute", "download"}}});
    else req.download = download->get<bool>();
  }
  if (errors) return std::move(*errors);
  return req;
}

asio::awaitable<Result<http::Reply>> post_url(Shared& s, http::RequestContext& ctx) {
  auto parsed = parse_url_request(*ctx.json);
  if (!parsed) co_return parsed.error();
  // Ownership first: another user's path is a 404 before anything is signed.
  auto check = [&s, user = ctx.principal->user_id, path = parsed->path](db::Resources& r) -> Result<void> {
    return s.options.authorize_path(r.db, user, path);
  };
  Result<void> allowed = co_await s.pool.run(std::move(check));
  if (!allowed) co_return allowed.error();

  const std::int64_t expires_at = unix_seconds(s.options.clock.now()) + s.options.link_ttl.count();
  const LinkClaims claims{parsed->path, expires_at, parsed->download};
  const std::string url = link_url(s.endpoint, claims, s.options.signer.sign(claims));
  JsonWriter data;
  data.begin_object()
      .field("url", std::string_view(url))
      .field("expires_at", std::string_view(ctx.time(TimePoint{std::chrono::seconds(expires_at)})))
      .end_object();
  co_return http::Reply{.data_json = data.take()};
}

http::Headers file_headers(std::string_view key, bool download, std::int64_t max_age) {
  const std::string_view disposition = download ? "attachment" : "inline";
  // Keys hold only [A-Za-z0-9._-]: the name needs no quoting beyond the quotes.
  return {
      {"Accept-Ranges", "bytes"},
      {"Content-Disposition", std::string(disposition) + "; filename=\"" + std::string(key_basename(key)) + "\""},
      {"Cache-Control", "private, max-age=" + std::to_string(max_age)},
      {"X-Content-Type-Options", "nosniff"},
  };
}

// Open, choose the range and, for GET, read the first piece: one job on the read pool. The rest
// is read as the client takes it; HEAD reads nothing. A file removed by retention is a 404.
Result<http::Reply> open_file(ReadPool& reads, ObjectStore& store, const DownloadLink& link,
                              std::optional<std::string> range, std::int64_t max_age, bool head) {
  auto reader = store.open_reader(link.key);
  if (!reader) {
    const StoreErrc code = reader.error().code;
    if (code == StoreErrc::invalid_key || code == StoreErrc::not_found) return ApiError::not_found();
    return ApiError::internal_error(reader.error().detail);
  }
  const std::uint64_t size = (*reader)->size();
  const RangeDecision decision = decide_range(range, size);
  if (std::holds_alternative<Unsatisfiable>(decision)) return range_not_satisfiable(size);

  const auto* part = std::get_if<ByteRange>(&decision);
  const std::uint64_t offset = part ? part->first : 0;
  const std::uint64_t length = part ? part->length() : size;
  auto body = std::make_unique<FileBody>(reads, std::move(*reader), link.key, offset, length);
  if (!head) {
    if (auto first = body->preload(); !first) return ApiError::internal_error(first.error().detail);
  }
  http::Reply reply{.status = part ? 206 : 200,
                    .headers = file_headers(link.key, link.download, max_age),
                    .bare = true,
                    .content_type = media_type_for(link.key),
                    .body_source = std::move(body)};
  if (part) {
    reply.headers.emplace_back("Content-Range", "bytes " + std::to_string(part->first) + "-" +
                                                    std::to_string(part->last) + "/" + std::to_string(size));
  }
  return reply;
}

asio::awaitable<Result<http::Reply>> get_download(Shared& s, http::RequestContext& ctx) {
  auto link = parse_link_query(ctx.query);
  if (!link || !s.options.signer.verify(link->claims(), link->signature)) co_return link_invalid();
  const std::int64_t now = unix_seconds(s.options.clock.now());
  if (now >= link->expires_at) co_return link_expired();
  if (!is_valid_key(link->key)) co_return ApiError::not_found();  // never signed; kept as a second wall
  const std::int64_t max_age = link->expires_at - now;  // what the link has left
  if (s.options.redirect) {
    // The presigned URL lives as long as the link has left (S3 caps it at 7 days).
    http::Reply moved{.status = 302, .data_json = "", .bare = true, .content_type = "text/plain; charset=utf-8"};
    moved.headers = {{"Location", s.options.redirect(link->key, link->download, max_age, now)},
                     {"Cache-Control", "private, max-age=" + std::to_string(max_age)}};
    co_return moved;
  }

  // No validators are offered (no ETag, no Last-Modified), so an If-Range can never match: the
  // whole file then, as RFC 9110 13.1.5 asks.
  std::optional<std::string> range;
  if (!ctx.request.header("If-Range")) {
    if (auto h = ctx.request.header("Range")) range = std::string(*h);
  }
  const bool head = ctx.request.method() == http::Method::head;
  auto work = [&s, l = std::move(*link), range = std::move(range), max_age, head]() -> Result<http::Reply> {
    return open_file(s.reads, s.options.store, l, range, max_age, head);
  };
  Result<http::Reply> reply = co_await s.reads.run(std::move(work));
  co_return reply;
}

std::string trim_trailing_slashes(std::string text) {
  while (!text.empty() && text.back() == '/') text.pop_back();
  return text;
}

}  // namespace

void register_routes(http::Router& router, db::BlockingPool& pool, StorageOptions options) {
  // Without the ownership check any key could fetch any order's files: refuse to start.
  if (!options.authorize_path) throw std::invalid_argument("storage routes need an authorize_path check");
  std::string prefix = router.api_prefix() == "/" ? std::string() : router.api_prefix();
  std::string endpoint = trim_trailing_slashes(options.public_url) + prefix + "/storage/download";
  // Lives as long as the router's handlers: the process.
  auto shared = std::make_shared<Shared>(pool, std::move(options), std::move(endpoint));
  router.add_api({
      .method = http::Method::post,
      .pattern = "/storage/url",
      .access = http::Access::scope,
      .scope = auth::Scope::orders_download,
      .body_limit = kUrlBodyLimit,
      .json_body = true,
      .handler = [shared](http::RequestContext& ctx) { return post_url(*shared, ctx); },
  });
  // The link is the credential: no key, so a browser or media player can follow it.
  router.add_api({
      .method = http::Method::get,
      .pattern = "/storage/download",
      .access = http::Access::open,
      .signed_query = true,
      .handler = [shared](http::RequestContext& ctx) { return get_download(*shared, ctx); },
  });
}

}  // namespace mediagen::storage
