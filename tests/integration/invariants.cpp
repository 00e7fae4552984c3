#include "invariants.hpp"

#include <gtest/gtest.h>

#include <fstream>
#include <pqxx/pqxx>
#include <sstream>
#include <stdexcept>
#include "mediagen/db/pg.hpp"

namespace mediagen::test {
namespace {

bool starts_with(const std::string& s, std::string_view prefix) { return s.rfind(prefix, 0) == 0; }

std::string trim(std::string s) {
  while (!s.empty() && (s.back() == '\n' || s.back() == ' ' || s.back() == ';')) s.pop_back();
  return s;
}

std::string render_row(const pqxx::row& row) {
  std::string out = "(";
  for (pqxx::row::size_type i = 0; i < row.size(); ++i) {
    if (i) out += ", ";
    out += row[i].is_null() ? "NULL" : row[i].c_str();
  }
  return out + ")";
}

}  // namespace

std::vector<InvariantCheck> invariant_checks() {
  std::ifstream file(MEDIAGEN_INVARIANTS_SQL);
  if (!file) throw std::runtime_error(std::string("cannot read ") + MEDIAGEN_INVARIANTS_SQL);
  std::vector<InvariantCheck> checks;
  std::string line;
  while (std::getline(file, line)) {
    if (starts_with(line, "-- I")) {
      checks.push_back({line.substr(3), ""});
    } else if (!starts_with(line, "--") && !checks.empty()) {
      checks.back().sql += line + "\n";
    }
  }
  for (auto& c : checks) c.sql = trim(c.sql);
  return checks;
}

std::vector<std::string> invariant_violations(const std::string& db_url) {
  std::vector<std::string> out;
  pqxx::connection conn(db_url);
  for (const auto& check : invariant_checks()) {
    pqxx::nontransaction tx(conn);
    auto rows = tx.exec(check.sql);
    if (rows.empty()) continue;
    std::string text = check.name + ":";
    std::size_t shown = 0;
    for (const auto& row : rows) {
      if (++shown > 20) {
        text += " ... (" + std::to_string(rows.size()) + " rows)";
        break;
      }
      text += " " + render_row(row);
    }
    out.push_back(std::move(text));
  }
  return out;
}

void expect_invariants(const std::string& db_url) {
  const auto checks = invariant_checks();
  EXPECT_GE(checks.size(), 17u) << "invariants.sql lost checks";
  for (const auto& violation : invariant_violations(db_url)) ADD_FAILURE() << "invariant broken: " << violation;
}

}  // namespace mediagen::test
