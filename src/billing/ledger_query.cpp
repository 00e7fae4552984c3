#include "ledger_query.hpp"

#include "mediagen/core/time_zone.hpp"
#include "mediagen/core/uuid_id.hpp"

namespace mediagen::billing {
namespace {

// Adds one failure to the 422 being collected, so it names every bad parameter at once.
void fail(std::optional<ApiError>& error, std::string field, Message message) {
  if (!error) error = ApiError::validation(std::move(field), std::move(message));
  else error->add_field(std::move(field), std::move(message));
}

std::string kinds_text() {
  std::string out;
  for (auto kind : kLedgerKinds) {
    if (!out.empty()) out += ", ";
    out += kind;
  }
  return out;
}

std::optional<TimePoint> time_param(const http::Query& query, std::string_view name, std::optional<ApiError>& error) {
  auto text = query.get(name);
  if (!text || text->empty()) return std::nullopt;
  auto parsed = parse_iso8601(*text);
  if (!parsed) fail(error, std::string(name), Message{"validation.date", {{"attribute", std::string(name)}}});
  return parsed;
}

}  // namespace

bool is_ledger_kind(std::string_view kind) noexcept {
  for (auto k : kLedgerKinds) {
    if (k == kind) return true;
  }
  return false;
}

Result<LedgerFilter> parse_ledger_query(const http::Query& query) {
  const auto page = http::integer_param(query, "page", {.fallback = 1, .min = 1, .max = std::nullopt});
  const auto per_page =
      http::integer_param(query, "per_page", {.fallback = kDefaultLedgerPerPage, .min = 1, .max = kMaxLedgerPerPage});
  std::optional<ApiError> error = http::combined_error({&page, &per_page});
  LedgerFilter filter;
  if (page) filter.page = *page;
  if (per_page) filter.per_page = *per_page;

  bool bad_kind = false;
  for (auto kind : query.all("kind")) {
    if (kind.empty()) continue;
    if (is_ledger_kind(kind)) filter.kinds.emplace_back(kind);
    else bad_kind = true;
  }
  if (bad_kind) fail(error, "kind", Message{"validation.in", {{"attribute", "kind"}, {"values", kinds_text()}}});

  const Message not_uuid{"validation.uuid", {{"attribute", "order_id"}}};
  if (query.has("order_id[]")) {
    fail(error, "order_id", not_uuid);
  } else if (auto id = query.get("order_id"); id && !id->empty()) {
    if (auto parsed = OrderId::parse(*id)) filter.order_id = parsed->str();
    else fail(error, "order_id", not_uuid);
  }

  filter.from = time_param(query, "from", error);
  filter.to = time_param(query, "to", error);
  if (filter.from && filter.to && *filter.to < *filter.from) {
    fail(error, "to", Message{"validation.date_order", {{"attribute", "to"}, {"other", "from"}}});
  }
  if (error) return std::move(*error);
  return filter;
}

}  // namespace mediagen::billing
