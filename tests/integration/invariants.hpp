#pragma once
// The money and order invariants of invariants.sql, for any test that moved money: each check
// must return no rows. expect_invariants adds one gtest failure per broken check, listing the
// offending rows.
#include <string>
#include <vector>

namespace mediagen::test {

struct InvariantCheck {
  std::string name;  // "I7 an order's escrows never negative, ..."
  std::string sql;
};

// The checks of invariants.sql, in file order.
std::vector<InvariantCheck> invariant_checks();

// "I7 ...: (row), (row), ..." for every check that returned rows; empty when all hold.
std::vector<std::string> invariant_violations(const std::string& db_url);

void expect_invariants(const std::string& db_url);

}  // namespace mediagen::test
