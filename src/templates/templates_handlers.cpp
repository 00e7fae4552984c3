// HTTP of templates (spec 4.4): parse, call the service on the blocking pool, render.
#include <nlohmann/json.hpp>
#include "mediagen/core/json_text.hpp"

#include "mediagen/db/blocking_pool.hpp"
#include "mediagen/http/query.hpp"
#include "mediagen/http/router.hpp"
#include "mediagen/templates/routes.hpp"
#include "mediagen/templates/templates.hpp"

namespace mediagen::templates {
namespace {

namespace asio = boost::asio;
using ojson = nlohmann::ordered_json;

constexpr std::size_t kTemplateBodyLimit = 64 * 1024;
constexpr std::int64_t kDefaultPerPage = 15;
constexpr std::int64_t kMaxPerPage = 100;

// Known keys first, in the order of spec 2.5, then anything else as stored.
ojson ordered(const nlohmann::json& object, std::initializer_list<std::string_view> order) {
  ojson out = ojson::object();
  if (!object.is_object()) return out;
  for (auto key : order) {
    auto it = object.find(std::string(key));
    if (it != object.end()) out[std::string(key)] = *it;
  }
  for (const auto& [k, v] : object.items()) {
    if (!out.contains(k)) out[k] = v;
  }
  return out;
}

ojson config_json(std::string_view stored) {
  auto config = nlohmann::json::parse(stored, nullptr, false);
  if (config.is_discarded() || !config.is_object()) return ojson::object();
  ojson out = ordered(config, {"tts_settings"});
  if (auto it = config.find("tts_settings"); it != config.end() && it->is_object()) {
    ojson tts = ordered(*it, {"mode", "model_id", "voice_id", "language_code", "advanced_voice_settings",
                              "voice_settings"});
    if (auto vs = it->find("voice_settings"); vs != it->end() && vs->is_object()) {
      tts["voice_settings"] = ordered(*vs, {"stability", "similarity_boost", "use_speaker_boost", "speed"});
    }
    out["tts_settings"] = std::move(tts);
  }
  return out;
}

ojson template_json(const Template& t, const http::RequestContext& ctx) {
  ojson j = ojson::object();
  j["id"] = t.id;
  j["service_key"] = t.service_key;
  j["name"] = t.name;
  j["config"] = config_json(t.config_json);
  j["created_at"] = ctx.time(t.created_at);
  j["updated_at"] = ctx.time(t.updated_at);
  return j;
}

Result<TemplateId> path_id(const http::RequestContext& ctx) { return http::path_id<TemplateId>(ctx, "template"); }

using Answer = asio::awaitable<Result<http::Reply>>;

Answer list_route(db::BlockingPool& pool, http::RequestContext& ctx) {
  auto list = [user = ctx.principal->user_id](db::Resources& r) { return list_templates(r.db, user); };
  auto items = co_await pool.run(std::move(list));
  ojson data = ojson::array();
  for (const auto& t : items) data.push_back(template_json(t, ctx));
  co_return http::Reply{.data_json = to_json_text(data)};
}

Answer browse_route(db::BlockingPool& pool, http::RequestContext& ctx) {
  const auto query = http::Query::parse(ctx.query);
  const auto page = http::integer_param(query, "page", {.fallback = 1, .min = 1, .max = std::nullopt});
  const auto per_page =
      http::integer_param(query, "per_page", {.fallback = kDefaultPerPage, .min = 1, .max = kMaxPerPage});
  if (auto error = http::combined_error({&page, &per_page})) co_return std::move(*error);
  auto browse = [user = ctx.principal->user_id, p = *page, n = *per_page](db::Resources& r) {
    return browse_templates(r.db, user, p, n);
  };
  auto result = co_await pool.run(std::move(browse));
  ojson items = ojson::array();
  for (const auto& t : result.items) items.push_back(template_json(t, ctx));
  ojson data = ojson::object();
  data["items"] = std::move(items);
  data["current_page"] = result.page;
  data["last_page"] = std::max<std::int64_t>(1, (result.total + result.per_page - 1) / result.per_page);
  data["per_page"] = result.per_page;
  data["total"] = result.total;
  co_return http::Reply{.data_json = to_json_text(data)};
}

Answer config_options_route(db::BlockingPool& pool, http::RequestContext& ctx) {
  auto read = [locale = ctx.locale](db::Resources& r) { return config_options_json(r.db, locale); };
  auto data = co_await pool.run(std::move(read));
  co_return http::Reply{.data_json = std::move(data)};
}

Answer create_route(db::BlockingPool& pool, http::RequestContext& ctx) {
  auto create = [user = ctx.principal->user_id, body = *ctx.json](db::Resources& r) {
    return create_template(r.db, user, body);
  };
  auto created = co_await pool.run(std::move(create));
  if (!created) co_return created.error();
  co_return http::Reply{
      .status = 201, .message = {"templates.created"}, .data_json = to_json_text(template_json(*created, ctx))};
}

Answer get_route(db::BlockingPool& pool, http::RequestContext& ctx) {
  auto id = path_id(ctx);
  if (!id) co_return id.error();
  auto load = [user = ctx.principal->user_id, id = std::move(*id)](db::Resources& r) {
    return load_template(r.db, user, id);
  };
  auto found = co_await pool.run(std::move(load));
  if (!found) co_return found.error();
  co_return http::Reply{.data_json = to_json_text(template_json(*found, ctx))};
}

Answer update_route(db::BlockingPool& pool, http::RequestContext& ctx) {
  auto id = path_id(ctx);
  if (!id) co_return id.error();
  auto update = [user = ctx.principal->user_id, id = std::move(*id), patch = *ctx.json](db::Resources& r) {
    return update_template(r.db, user, id, patch);
  };
  auto updated = co_await pool.run(std::move(update));
  if (!updated) co_return updated.error();
  co_return http::Reply{.message = {"templates.updated"}, .data_json = to_json_text(template_json(*updated, ctx))};
}

Answer delete_route(db::BlockingPool& pool, http::RequestContext& ctx) {
  auto id = path_id(ctx);
  if (!id) co_return id.error();
  auto remove = [user = ctx.principal->user_id, id = std::move(*id)](db::Resources& r) {
    return delete_template(r.db, user, id);
  };
  auto removed = co_await pool.run(std::move(remove));
  if (!removed) co_return removed.error();
  co_return http::Reply{.message = {"templates.deleted"}, .data_json = "null"};
}

}  // namespace

void register_routes(http::Router& router, db::BlockingPool& pool) {
  const auto route = [&pool](Answer (*handler)(db::BlockingPool&, http::RequestContext&)) {
    return [&pool, handler](http::RequestContext& ctx) { return handler(pool, ctx); };
  };
  router.add_api({.method = http::Method::get,
                  .pattern = "/templates",
                  .scope = auth::Scope::templates_read,
                  .handler = route(&list_route)});
  router.add_api({.method = http::Method::get,
                  .pattern = "/templates/browse",
                  .scope = auth::Scope::templates_read,
                  .handler = route(&browse_route)});
  router.add_api({.method = http::Method::get,
                  .pattern = "/templates/config-options",
                  .scope = auth::Scope::templates_read,
                  .handler = route(&config_options_route)});
  router.add_api({.method = http::Method::post,
                  .pattern = "/templates",
                  .scope = auth::Scope::templates_write,
                  .body_limit = kTemplateBodyLimit,
                  .json_body = true,
                  .handler = route(&create_route)});
  router.add_api({.method = http::Method::get,
                  .pattern = "/templates/{template}",
                  .scope = auth::Scope::templates_read,
                  .handler = route(&get_route)});
  // PUT and PATCH are one operation: a JSON merge patch of the template (see templates.hpp).
  for (auto method : {http::Method::put, http::Method::patch}) {
    router.add_api({.method = method,
                    .pattern = "/templates/{template}",
                    .scope = auth::Scope::templates_write,
                    .body_limit = kTemplateBodyLimit,
                    .json_body = true,
                    .handler = route(&update_route)});
  }
  router.add_api({.method = http::Method::del,
                  .pattern = "/templates/{template}",
                  .scope = auth::Scope::templates_write,
                  .handler = route(&delete_route)});
}

}  // namespace mediagen::templates
