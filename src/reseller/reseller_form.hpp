#pragma once
// What a reseller's requests carry, read and checked before any work: the POST /reseller/codes
// body and the list and statistics queries. Every refusal is a 422 naming each wrong field.
#include <cstdint>
#include <optional>

#include <nlohmann/json_fwd.hpp>

#include "mediagen/core/api_error.hpp"
#include "mediagen/http/query.hpp"
#include "mediagen/reseller/gift_codes.hpp"

namespace mediagen::reseller {

inline constexpr std::int64_t kDefaultPerPage = 20;
inline constexpr std::int64_t kMaxPerPage = 100;
inline constexpr std::size_t kMaxCurrencyChars = 16;

// {nominal: integer 1..kMaxNominal, currency?: asset code (letters and digits, uppercased),
// activatable_at?: ISO 8601 time with an offset}; null stands for absent in the optional fields.
Result<IssueRequest> read_issue_body(const nlohmann::json* body);

struct ListQuery {
  std::int64_t page = 1;
  std::int64_t per_page = kDefaultPerPage;
  std::optional<GiftCodeStatus> status;
  std::int64_t offset() const;
};
// page (>= 1), per_page (1..100), status (active, redeemed, cancelled).
Result<ListQuery> read_list_query(const http::Query& query);

// from and to (ISO 8601 with an offset); to defaults to now, from to 30 days before to; from
// must not be after to.
Result<std::pair<TimePoint, TimePoint>> read_stats_query(const http::Query& query, TimePoint now);

}  // namespace mediagen::reseller
