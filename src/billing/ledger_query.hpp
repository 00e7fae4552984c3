#pragma once
// The query of GET /ledger-transactions, checked: every bad parameter is named in one 422.
#include "mediagen/billing/ledger_filter.hpp"
#include "mediagen/core/api_error.hpp"
#include "mediagen/http/query.hpp"

namespace mediagen::billing {

// page (>= 1), per_page (1..100, default 20); kind, one value or the array form kind[], each a
// ledger kind; order_id, a uuid (in either case); from and to, ISO 8601 times (a date alone is
// midnight UTC, a time without an offset is UTC), to not earlier than from. Empty values do not
// filter, as if absent.
Result<LedgerFilter> parse_ledger_query(const http::Query& query);

}  // namespace mediagen::billing
