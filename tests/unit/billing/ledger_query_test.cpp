#include <gtest/gtest.h>

#include "billing/ledger_query.hpp"
#include "mediagen/core/time_zone.hpp"

namespace mediagen::billing {
namespace {

Result<LedgerFilter> parse(std::string_view query) { return parse_ledger_query(http::Query::parse(query)); }

// The fields a 422 names, each with its first message key.
std::vector<std::pair<std::string, std::string>> failures(const Result<LedgerFilter>& r) {
  std::vector<std::pair<std::string, std::string>> out;
  if (r) return out;
  EXPECT_EQ(r.error().status, 422);
  for (const auto& f : r.error().fields) out.emplace_back(f.field, f.messages.at(0).key);
  return out;
}

using Failures = std::vector<std::pair<std::string, std::string>>;

TEST(LedgerQuery, DefaultsToTheFirstPageOfTwentyWithoutFilters) {
  auto f = parse("");
  ASSERT_TRUE(f);
  EXPECT_EQ(f->page, 1);
  EXPECT_EQ(f->per_page, 20);
  EXPECT_TRUE(f->kinds.empty());
  EXPECT_FALSE(f->order_id || f->from || f->to);
}

TEST(LedgerQuery, ReadsEveryFilter) {
  auto f = parse("page=3&per_page=100&kind=order_lock&kind[]=chunk_charge&order_id=0A1B2C3D-0000-4000-8000-00000000000F"
                 "&from=2026-11-01T00:00:00%2B03:00&to=2026-11-02");
  ASSERT_TRUE(f);
  EXPECT_EQ(f->page, 3);
  EXPECT_EQ(f->per_page, 100);
  EXPECT_EQ(f->kinds, (std::vector<std::string>{"order_lock", "chunk_charge"}));
  EXPECT_EQ(f->order_id, "0a1b2c3d-0000-4000-8000-00000000000f");
  EXPECT_EQ(f->from, parse_iso8601("2026-10-31T21:00:00Z"));
  EXPECT_EQ(f->to, parse_iso8601("2026-11-02T00:00:00Z"));
}

TEST(LedgerQuery, TakesEveryKindOfTheLedger) {
  for (auto kind : kLedgerKinds) {
    auto f = parse("kind=" + std::string(kind));
    ASSERT_TRUE(f) << kind;
    EXPECT_EQ(f->kinds, std::vector<std::string>{std::string(kind)});
  }
}

TEST(LedgerQuery, EmptyValuesDoNotFilter) {
  auto f = parse("kind=&order_id=&from=&to=&page=&per_page=");
  ASSERT_TRUE(f);
  EXPECT_TRUE(f->kinds.empty());
  EXPECT_FALSE(f->order_id || f->from || f->to);
  EXPECT_EQ(f->per_page, 20);
}

TEST(LedgerQuery, NamesEveryBadParameterInOne422) {
  EXPECT_EQ(failures(parse("per_page=101&kind=lock&order_id=12&from=yesterday&to=2026-13-01")),
            (Failures{{"per_page", "validation.between"},
                      {"kind", "validation.in"},
                      {"order_id", "validation.uuid"},
                      {"from", "validation.date"},
                      {"to", "validation.date"}}));
  EXPECT_EQ(failures(parse("page=0")), (Failures{{"page", "validation.min"}}));
  EXPECT_EQ(failures(parse("per_page=0")), (Failures{{"per_page", "validation.between"}}));
  EXPECT_EQ(failures(parse("order_id[]=0a1b2c3d-0000-4000-8000-00000000000f")), (Failures{{"order_id", "validation.uuid"}}));
}

TEST(LedgerQuery, RefusesATimeThatIsNotIso8601) {
  for (auto bad : {"from=1700000000", "from=2026-11-01T25:00:00Z", "from=2026-11-01T10:00:00%2B3", "from=now",
                   "from=2026-11-01T10:00"}) {
    EXPECT_EQ(failures(parse(bad)), (Failures{{"from", "validation.date"}})) << bad;
  }
}

TEST(LedgerQuery, RefusesAnEndBeforeTheStartButTakesAnEmptyInterval) {
  EXPECT_EQ(failures(parse("from=2026-11-02&to=2026-11-01")), (Failures{{"to", "validation.date_order"}}));
  EXPECT_TRUE(parse("from=2026-11-02&to=2026-11-02"));
}

TEST(LedgerQuery, NamesAKindOnceHoweverManyAreUnknown) {
  EXPECT_EQ(failures(parse("kind=a&kind=b&kind=order_lock")), (Failures{{"kind", "validation.in"}}));
}

}  // namespace
}  // namespace mediagen::billing
