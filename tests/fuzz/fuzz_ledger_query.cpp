// The query of GET /ledger-transactions (input: the raw query string). Properties:
//   - it never throws; an answer is a filter or a 422 naming only the parameters it reads;
//   - a filter keeps page >= 1 and per_page 1..100, names only ledger kinds, a lowercase
//     36-character order id, and never an end before its start.
#include <string>
#include <string_view>

#include "billing/ledger_query.hpp"
#include "fuzz_support.hpp"
#include "mediagen/core/uuid.hpp"

namespace {

using namespace mediagen;

bool known_field(std::string_view f) {
  return f == "page" || f == "per_page" || f == "kind" || f == "order_id" || f == "from" || f == "to";
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const auto query = http::Query::parse(mediagen::fuzz::as_text(data, size));
  const auto filter = billing::parse_ledger_query(query);
  if (!filter) {
    FUZZ_CHECK(filter.error().status == 422);
    FUZZ_CHECK(!filter.error().fields.empty());
    for (const auto& f : filter.error().fields) FUZZ_CHECK(known_field(f.field) && !f.messages.empty());
    return 0;
  }
  FUZZ_CHECK(filter->page >= 1);
  FUZZ_CHECK(filter->per_page >= 1 && filter->per_page <= billing::kMaxLedgerPerPage);
  for (const auto& k : filter->kinds) FUZZ_CHECK(billing::is_ledger_kind(k));
  if (filter->order_id) FUZZ_CHECK(is_uuid(*filter->order_id) && *filter->order_id == lowercase_id(*filter->order_id));
  if (filter->from && filter->to) FUZZ_CHECK(*filter->from <= *filter->to);
  return 0;
}
