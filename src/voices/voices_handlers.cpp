// HTTP of the voice catalogues (spec 4.5). Two list shapes:
//   shape 1 {items, current_page, last_page, per_page, total}: page from 1, per_page 1..100
//   shape 2 {voices, total, page, page_size, has_more}: page from 0 (provider_a library and
//           provider_b); provider_a's total counts the voices on this page, provider_b's every
//           match across pages.
// Out-of-range paging parameters are 422 naming the parameter; nothing is clamped.
#include <nlohmann/json.hpp>
#include "mediagen/core/json_text.hpp"

#include "mediagen/db/blocking_pool.hpp"
#include "mediagen/http/query.hpp"
#include "mediagen/http/router.hpp"
#include "mediagen/voices/routes.hpp"
#include "mediagen/voices/voices.hpp"

namespace mediagen::voices {
namespace {

namespace asio = boost::asio;
using ojson = nlohmann::ordered_json;
using Handler = std::function<asio::awaitable<Result<http::Reply>>(http::RequestContext&)>;

constexpr std::int64_t kShape1DefaultPerPage = 20;
constexpr std::int64_t kShape1MaxPerPage = 100;
constexpr std::int64_t kProviderADefaultPageSize = 30;
constexpr std::int64_t kProviderAMaxPageSize = 100;
constexpr std::int64_t kProviderBDefaultPageSize = 55;
constexpr std::int64_t kProviderBMaxPageSize = 200;

ojson voice_json(const Voice& v) {
  ojson j = ojson::object();
  j["id"] = v.id;
  j["voice_id"] = v.voice_id;
  j["service"] = v.service;
  j["category"] = "catalogue";
  j["name"] = v.name;
  j["language"] = v.language;
  j["locale"] = v.locale;
  j["accent"] = v.accent;
  j["gender"] = v.gender;
  j["tags"] = v.tags;
  j["preview_path"] = v.preview_path;
  j["public"] = v.is_public;
  return j;
}

std::optional<std::string> text_param(const http::Query& q, std::string_view name) {
  auto v = q.get(name);
  if (!v || v->empty()) return std::nullopt;
  return std::string(*v);
}

// The filters every list takes; `service` only where the list spans services.
VoiceFilter filter_of(const http::Query& q, bool with_service) {
  VoiceFilter f;
  if (with_service) f.service = text_param(q, "service");
  f.language = text_param(q, "language");
  f.locale = text_param(q, "locale");
  f.gender = text_param(q, "gender");
  f.tag = text_param(q, "tag");
  f.search = text_param(q, "search");
  return f;
}

// A shape-1 list. `fixed_service` pins the service (provider_c, provider_d).
Handler shape1(db::BlockingPool& pool, std::optional<std::string> fixed_service, bool public_only) {
  return [&pool, fixed_service, public_only](http::RequestContext& ctx) -> asio::awaitable<Result<http::Reply>> {
    const auto query = http::Query::parse(ctx.query);
    const auto page = http::integer_param(query, "page", {.fallback = 1, .min = 1, .max = std::nullopt});
    const auto per_page =
        http::integer_param(query, "per_page", {.fallback = kShape1DefaultPerPage, .min = 1, .max = kShape1MaxPerPage});
    if (auto error = http::combined_error({&page, &per_page})) co_return std::move(*error);
    VoiceFilter filter = filter_of(query, !fixed_service);
    if (fixed_service) filter.service = fixed_service;
    filter.public_only = public_only;
    const std::int64_t p = *page, n = *per_page;
    // (p - 1) * n overflows only for pages far past any catalogue: such a page is simply empty.
    const std::int64_t offset = p - 1 > INT64_MAX / n ? INT64_MAX : (p - 1) * n;
    auto find = [filter, offset, n](db::Resources& r) { return find_voices(r.db, filter, offset, n); };
    auto slice = co_await pool.run(std::move(find));
    ojson items = ojson::array();
    for (const auto& v : slice.items) items.push_back(voice_json(v));
    ojson data = ojson::object();
    data["items"] = std::move(items);
    data["current_page"] = p;
    data["last_page"] = std::max<std::int64_t>(1, (slice.total + n - 1) / n);
    data["per_page"] = n;
    data["total"] = slice.total;
    co_return http::Reply{.data_json = to_json_text(data)};
  };
}

// A shape-2 list: page from zero. `total_on_page`: provider_a's meaning of total.
Handler shape2(db::BlockingPool& pool, std::string service, std::int64_t default_size, std::int64_t max_size,
               bool total_on_page) {
  return [&pool, service, default_size, max_size,
          total_on_page](http::RequestContext& ctx) -> asio::awaitable<Result<http::Reply>> {
    const auto query = http::Query::parse(ctx.query);
    const auto page = http::integer_param(query, "page", {.fallback = 0, .min = 0, .max = std::nullopt});
    const auto size =
        http::integer_param(query, "page_size", {.fallback = default_size, .min = 1, .max = max_size});
    if (auto error = http::combined_error({&page, &size})) co_return std::move(*error);
    VoiceFilter filter = filter_of(query, false);
    filter.service = service;
    const std::int64_t p = *page, n = *size;
    const std::int64_t offset = p > INT64_MAX / n ? INT64_MAX : p * n;
    auto find = [filter, offset, n](db::Resources& r) { return find_voices(r.db, filter, offset, n); };
    auto slice = co_await pool.run(std::move(find));
    ojson voices = ojson::array();
    for (const auto& v : slice.items) voices.push_back(voice_json(v));
    const auto on_page = static_cast<std::int64_t>(slice.items.size());
    ojson data = ojson::object();
    data["voices"] = std::move(voices);
    data["total"] = total_on_page ? on_page : slice.total;
    data["page"] = p;
    data["page_size"] = n;
    data["has_more"] = offset < slice.total && slice.total - offset > on_page;
    co_return http::Reply{.data_json = to_json_text(data)};
  };
}

}  // namespace

void register_routes(http::Router& router, db::BlockingPool& pool) {
  auto add = [&router](std::string pattern, Handler handler) {
    router.add_api({.method = http::Method::get,
                    .pattern = std::move(pattern),
                    .scope = auth::Scope::voices_read,
                    .handler = std::move(handler)});
  };

  // Every voice a template can name: the catalogue voices of all voice services (own ready
  // clones join this list when clones exist).
  add("/voices", shape1(pool, std::nullopt, false));
  // The shared catalogue only: never clones.
  add("/voices/library", shape1(pool, std::nullopt, false));
  // The public gallery: catalogue voices marked public (robotic and character voices are not).
  add("/voices/public", shape1(pool, std::nullopt, true));
  add("/voices/provider_c", shape1(pool, std::string("provider_c"), false));
  add("/voices/provider_d", shape1(pool, std::string("provider_d"), false));
  add("/voices/provider_a/library",
      shape2(pool, "provider_a", kProviderADefaultPageSize, kProviderAMaxPageSize, /*total_on_page=*/true));
  add("/voices/provider_b",
      shape2(pool, "provider_b", kProviderBDefaultPageSize, kProviderBMaxPageSize, /*total_on_page=*/false));

  add("/voices/tags", [&pool](http::RequestContext& ctx) -> asio::awaitable<Result<http::Reply>> {
    auto read = [locale = ctx.locale](db::Resources& r) { return list_tags(r.db, locale); };
    auto tags = co_await pool.run(std::move(read));
    ojson data = ojson::array();
    for (const auto& t : tags) data.push_back({{"code", t.code}, {"name", t.name}});
    co_return http::Reply{.data_json = to_json_text(data)};
  });

  add("/voices/provider_b/filters", [&pool](http::RequestContext& ctx) -> asio::awaitable<Result<http::Reply>> {
    auto read = [locale = ctx.locale](db::Resources& r) { return list_filters(r.db, "provider_b", locale); };
    auto values = co_await pool.run(std::move(read));
    ojson data = ojson::array();
    for (const auto& v : values) {
      data.push_back({{"type", v.type}, {"value", v.value}, {"name", v.name}, {"count", v.count}});
    }
    co_return http::Reply{.data_json = to_json_text(data)};
  });

  add("/voices/{voice}", [&pool](http::RequestContext& ctx) -> asio::awaitable<Result<http::Reply>> {
    auto id = http::path_id<VoiceId>(ctx, "voice");
    if (!id) co_return id.error();
    auto read = [id = std::move(*id)](db::Resources& r) { return find_voice_by_id(r.db, id); };
    auto voice = co_await pool.run(std::move(read));
    if (!voice) co_return ApiError::not_found();
    co_return http::Reply{.data_json = to_json_text(voice_json(*voice))};
  });
}

}  // namespace mediagen::voices
