#include "reseller_form.hpp"

#include <nlohmann/json.hpp>

#include "mediagen/core/time_zone.hpp"

namespace mediagen::reseller {
namespace {

// The errors of one request, each field once, in the order they were found.
class Errors {
 public:
  void add(std::string field, std::string key, std::vector<std::pair<std::string, std::string>> params = {}) {
    params.emplace_back("attribute", field);
    Message m{std::move(key), std::move(params)};
    if (!error_) {
      error_ = ApiError::validation(std::move(field), std::move(m));
    } else {
      error_->add_field(std::move(field), std::move(m));
    }
  }
  std::optional<ApiError> take() { return std::move(error_); }

 private:
  std::optional<ApiError> error_;
};

const nlohmann::json* member(const nlohmann::json* body, const char* name) {
  if (!body || !body->is_object()) return nullptr;
  auto it = body->find(name);
  if (it == body->end() || it->is_null()) return nullptr;
  return &*it;
}

std::optional<std::int64_t> read_nominal(const nlohmann::json* v, Errors& errors) {
  if (!v) {
    errors.add("nominal", "validation.required");
    return std::nullopt;
  }
  if (!v->is_number_integer()) {
    errors.add("nominal", "validation.integer");
    return std::nullopt;
  }
  // Unsigned JSON integers beyond int64 are out of range as well, never wrapped.
  const bool in_range = v->is_number_unsigned() ? v->get<std::uint64_t>() <= static_cast<std::uint64_t>(kMaxNominal)
                                                : v->get<std::int64_t>() <= kMaxNominal;
  if (!in_range || v->get<std::int64_t>() < 1) {
    errors.add("nominal", "validation.between", {{"min", "1"}, {"max", std::to_string(kMaxNominal)}});
    return std::nullopt;
  }
  return v->get<std::int64_t>();
}

std::optional<std::string> read_currency(const nlohmann::json* v, Errors& errors) {
  if (!v) return std::nullopt;
  if (!v->is_string()) {
    errors.add("currency", "validation.string");
    return std::nullopt;
  }
  std::string code = v->get<std::string>();
  bool ok = !code.empty() && code.size() <= kMaxCurrencyChars;
  for (auto& c : code) {
    if (c >= 'a' && c <= 'z') c = static_cast<char>(c - 'a' + 'A');
    ok = ok && ((c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9'));
  }
  if (!ok) {
    errors.add("currency", "validation.currency");
    return std::nullopt;
  }
  return code;
}

std::optional<TimePoint> read_time(const nlohmann::json* v, const char* field, Errors& errors) {
  if (!v) return std::nullopt;
  std::optional<TimePoint> t;
  if (v->is_string()) t = parse_iso8601(v->get_ref<const std::string&>());
  if (!t) errors.add(field, "validation.date");
  return t;
}

}  // namespace

Result<IssueRequest> read_issue_body(const nlohmann::json* body) {
  Errors errors;
  IssueRequest out;
  const auto nominal = read_nominal(member(body, "nominal"), errors);
  out.currency = read_currency(member(body, "currency"), errors);
  out.activatable_at = read_time(member(body, "activatable_at"), "activatable_at", errors);
  if (auto e = errors.take()) return std::move(*e);
  out.nominal = *nominal;
  return out;
}

std::int64_t ListQuery::offset() const {
  return page - 1 > INT64_MAX / per_page ? INT64_MAX : (page - 1) * per_page;
}

Result<ListQuery> read_list_query(const http::Query& query) {
  const auto page = http::integer_param(query, "page", {.fallback = 1, .min = 1, .max = std::nullopt});
  const auto per_page = http::integer_param(query, "per_page", {.fallback = kDefaultPerPage, .min = 1, .max = kMaxPerPage});
  auto error = http::combined_error({&page, &per_page});
  ListQuery out;
  if (const auto status = query.get("status"); status && !status->empty()) {
    out.status = parse_gift_code_status(*status);
    if (!out.status) {
      Message m{"validation.in", {{"attribute", "status"}, {"values", "active, redeemed, cancelled"}}};
      if (error) error->add_field("status", std::move(m));
      else error = ApiError::validation("status", std::move(m));
    }
  }
  if (error) return std::move(*error);
  out.page = *page;
  out.per_page = *per_page;
  return out;
}

Result<std::pair<TimePoint, TimePoint>> read_stats_query(const http::Query& query, TimePoint now) {
  Errors errors;
  std::optional<TimePoint> from, to;
  for (auto [name, slot] : {std::pair{"from", &from}, std::pair{"to", &to}}) {
    const auto raw = query.get(name);
    if (!raw || raw->empty()) continue;
    *slot = parse_iso8601(*raw);
    if (!*slot) errors.add(name, "validation.date");
  }
  if (auto e = errors.take()) return std::move(*e);
  const TimePoint end = to.value_or(now);
  const TimePoint start = from.value_or(end - std::chrono::hours(24 * 30));
  if (start > end) {
    errors.add("to", "validation.date_order", {{"other", "from"}});
    return *errors.take();
  }
  return std::pair{start, end};
}

}  // namespace mediagen::reseller
