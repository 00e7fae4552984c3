// HTTP of voice clones: reading the multipart form, storing the samples, rendering clones.
// Checks of a create, in order: name (422 with errors), no sample (422 source_file_required),
// a sample that is not audio by content (422 source_file_unsupported), then the limits (402,
// 429). Samples are stored before the row is written and removed again when the create is
// refused, so a refused create leaves nothing behind.
#include <nlohmann/json.hpp>

#include "clone_form.hpp"
#include "mediagen/core/json_text.hpp"
#include "mediagen/core/log.hpp"
#include "mediagen/core/uuid.hpp"
#include "mediagen/db/blocking_pool.hpp"
#include "mediagen/engines/codec.hpp"
#include "mediagen/http/idempotency.hpp"
#include "mediagen/http/query.hpp"
#include "mediagen/http/router.hpp"
#include "mediagen/storage/object_store.hpp"
#include "mediagen/voices/clones.hpp"
#include "mediagen/voices/routes.hpp"

namespace mediagen::voices {
namespace {

namespace asio = boost::asio;
using Answer = asio::awaitable<Result<http::Reply>>;
using ojson = nlohmann::ordered_json;

constexpr std::int64_t kDefaultPerPage = 20;
constexpr std::int64_t kMaxPerPage = 100;

http::MultipartLimits upload_limits() {
  return {.max_total_bytes = 60 * 1024 * 1024,
          .max_parts = 16,
          .max_part_header_bytes = 8 * 1024,
          .max_field_bytes = 4 * 1024,
          .max_file_bytes = 25 * 1024 * 1024};
}



// Stores the samples, then writes the row; a refused row (or a replay that won a race with this
// request) takes the samples away again. With an Idempotency-Key, a finished create under it
// answers before any sample is stored.
Result<CreatedClone> store_and_create(db::Resources& r, storage::ObjectStore& store, UserId user, const NewClone& clone,
                                      const std::vector<const http::MultipartPart*>& files,
                                      const std::optional<IdempotencyKey>& key, const TimeZone& tz) {
  if (key) {
    if (auto replay = replayed_create(r.db, user, *key)) return std::move(*replay);
  }
  auto forget = [&] {
    if (auto removed = store.remove_prefix(samples_prefix(clone.id)); !removed) {
      log::warn("clone samples not removed", {{"clone_id", clone.id}, {"error", removed.error().detail}});
    }
  };
  // Each sample's first second decoded, here on the pool rather than on the I/O thread.
  for (const auto* f : files) {
    if (auto refused = engines::check_upload(f->data)) {
      return ApiError::refused(refused->kind == engines::IntakeRefusalKind::empty ? Reason::source_file_required
                                                                                  : Reason::source_file_unsupported);
    }
  }
  for (std::size_t i = 0; i < files.size(); ++i) {
    if (auto put = store.put(sample_key(clone.id, i), files[i]->data); !put) {
      forget();
      return ApiError::internal_error("clone sample not stored: " + put.error().detail);
    }
  }
  Result<CreatedClone> created = ApiError::internal_error("clone not created");
  if (key) {
    created = create_clone(r.db, user, clone, *key, [&tz](const Clone& c) { return clone_json(c, tz); });
  } else if (auto made = create_clone(r.db, user, clone)) {
    created = CreatedClone{.clone = *made, .data_json = clone_json(*made, tz)};
  } else {
    created = made.error();
  }
  if (!created || created->replayed) forget();
  return created;
}

Answer create_route(db::BlockingPool& pool, const CloneRouteOptions& options, std::string service,
                    http::RequestContext& ctx) {
  auto key = http::idempotency_key_of(ctx);
  if (!key) co_return key.error();
  auto checked = read_clone_form(ctx.form, ctx.json);
  if (!checked) co_return checked.error();
  NewClone clone{.id = random_uuid(),
                 .service = std::move(service),
                 .name = std::move(checked->name),
                 .sample_count = static_cast<std::int64_t>(checked->files.size()),
                 .sample_bytes = checked->bytes};
  auto run = [&options, user = ctx.principal->user_id, &clone, files = checked->files, key = *key,
              tz = ctx.tz](db::Resources& r) {
    auto created = store_and_create(r, options.store, user, clone, files, key, tz);
    if (created && !created->replayed && options.on_queued) options.on_queued(r.redis);
    return created;
  };
  auto created = co_await pool.run(std::move(run));
  if (!created) co_return created.error();
  http::Reply reply{.status = 201, .message = {"clones.created"}, .data_json = std::move(created->data_json)};
  if (created->replayed) reply.headers.emplace_back("Idempotent-Replayed", "true");
  else if (options.publish) options.publish(clone_event(*created->clone));
  co_return reply;
}

Answer list_route(db::BlockingPool& pool, std::string service, http::RequestContext& ctx) {
  const auto query = http::Query::parse(ctx.query);
  const auto page = http::integer_param(query, "page", {.fallback = 1, .min = 1, .max = std::nullopt});
  const auto per_page =
      http::integer_param(query, "per_page", {.fallback = kDefaultPerPage, .min = 1, .max = kMaxPerPage});
  if (auto error = http::combined_error({&page, &per_page})) co_return std::move(*error);
  const std::int64_t p = *page, n = *per_page;
  const std::int64_t offset = p - 1 > INT64_MAX / n ? INT64_MAX : (p - 1) * n;
  auto read = [user = ctx.principal->user_id, service, offset, n](db::Resources& r) {
    return list_clones(r.db, user, service, offset, n);
  };
  auto slice = co_await pool.run(std::move(read));
  std::string items = "[";
  for (const auto& c : slice.items) {
    if (items.size() > 1) items += ",";
    items += clone_json(c, ctx.tz);
  }
  items += "]";
  // Shape 1; the items are JSON text already, so they go in as they are, not parsed again.
  const std::int64_t last = std::max<std::int64_t>(1, (slice.total + n - 1) / n);
  co_return http::Reply{.data_json = "{\"items\":" + items + ",\"current_page\":" + std::to_string(p) +
                                     ",\"last_page\":" + std::to_string(last) + ",\"per_page\":" + std::to_string(n) +
                                     ",\"total\":" + std::to_string(slice.total) + "}"};
}

using CloneOp = Result<Clone> (*)(db::Db&, UserId, std::string_view, const CloneId&);

// show, retry and archive: one clone of the caller's by its id.
Answer one_route(db::BlockingPool& pool, const CloneRouteOptions& options, std::string service, CloneOp op,
                 const char* message, http::RequestContext& ctx) {
  const bool changes = op != &find_clone;
  auto id = http::path_id<CloneId>(ctx, "clone");
  if (!id) co_return id.error();
  auto run = [&options, op, changes, user = ctx.principal->user_id, service, id = std::move(*id)](db::Resources& r) {
    auto clone = op(r.db, user, service, id);
    if (clone && changes && clone->status == CloneStatus::pending && options.on_queued) options.on_queued(r.redis);
    // An archived clone is never analysed again: its samples go now.
    if (clone && clone->status == CloneStatus::archived) (void)options.store.remove_prefix(samples_prefix(clone->id));
    return clone;
  };
  auto clone = co_await pool.run(std::move(run));
  if (!clone) co_return clone.error();
  if (changes && options.publish) options.publish(clone_event(*clone));
  co_return http::Reply{.message = {message}, .data_json = clone_json(*clone, ctx.tz)};
}

Answer quota_route(db::BlockingPool& pool, http::RequestContext& ctx) {
  auto read = [user = ctx.principal->user_id](db::Resources& r) { return clone_quotas(r.db, user); };
  const auto quotas = co_await pool.run(std::move(read));
  ojson services = ojson::array();
  for (const auto& q : quotas.services) {
    services.push_back({{"service", q.service}, {"limit", q.limit}, {"used", q.used}, {"remaining", q.remaining}});
  }
  ojson data = ojson::object();
  data["subscription"] = quotas.subscription;
  data["shared"] = !quotas.subscription;
  data["services"] = std::move(services);
  co_return http::Reply{.data_json = to_json_text(data)};
}

}  // namespace

void register_clone_routes(http::Router& router, db::BlockingPool& pool, CloneRouteOptions options) {
  auto shared = std::make_shared<CloneRouteOptions>(std::move(options));
  auto add = [&router](http::Method method, std::string pattern, auth::Scope scope, http::Handler handler) {
    router.add_api({.method = method, .pattern = std::move(pattern), .scope = scope, .handler = std::move(handler)});
  };
  for (const std::string service : {"provider_c", "provider_d"}) {
    const std::string base = "/voices/" + service + "/clones";
    const auto limits = upload_limits();
    router.add_api({.method = http::Method::post,
                    .pattern = base,
                    .scope = auth::Scope::voices_write,
                    .body_limit = limits.max_total_bytes,
                    .json_body = true,
                    .multipart_body = true,
                    .multipart = limits,
                    .json_body_limit = 64 * 1024,  // a JSON body carries no samples: only its refusal
                    .handler = [&pool, shared, service](http::RequestContext& ctx) {
                      return create_route(pool, *shared, service, ctx);
                    }});
    add(http::Method::get, base, auth::Scope::voices_read,
        [&pool, service](http::RequestContext& ctx) { return list_route(pool, service, ctx); });
    add(http::Method::get, base + "/{clone}", auth::Scope::voices_read, [&pool, shared, service](http::RequestContext& ctx) {
      return one_route(pool, *shared, service, &find_clone, "ok", ctx);
    });
    add(http::Method::post, base + "/{clone}/retry", auth::Scope::voices_write,
        [&pool, shared, service](http::RequestContext& ctx) {
          return one_route(pool, *shared, service, &retry_clone, "clones.retried", ctx);
        });
    add(http::Method::post, base + "/{clone}/archive", auth::Scope::voices_write,
        [&pool, shared, service](http::RequestContext& ctx) {
          return one_route(pool, *shared, service, &archive_clone, "clones.archived", ctx);
        });
  }
  add(http::Method::get, "/voices/clones/quota", auth::Scope::voices_read,
      [&pool](http::RequestContext& ctx) { return quota_route(pool, ctx); });
}

}  // namespace mediagen::voices
