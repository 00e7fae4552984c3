#include "mediagen/db/pg_result.hpp"

#include <libpq-fe.h>

#include <charconv>
#include <stdexcept>
#include <string_view>

namespace mediagen::db {

namespace {

template <class N>
N number(const char* text, const char* what) {
  const std::string_view s(text);
  N value{};
  const auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), value);
  if (ec != std::errc() || end != s.data() + s.size() || s.empty()) {
    throw std::invalid_argument(std::string("not ") + what + ": " + std::string(s.substr(0, 32)));
  }
  return value;
}

}  // namespace

bool PgField::is_null() const { return PQgetisnull(result_, row_, column_) == 1; }

const char* PgField::c_str() const { return PQgetvalue(result_, row_, column_); }

template <>
std::string PgField::as<std::string>() const {
  if (is_null()) throw std::invalid_argument("NULL read as text");
  return std::string(c_str(), static_cast<std::size_t>(PQgetlength(result_, row_, column_)));
}

template <>
std::int64_t PgField::as<std::int64_t>() const {
  if (is_null()) throw std::invalid_argument("NULL read as a number");
  return number<std::int64_t>(c_str(), "an integer");
}

template <>
int PgField::as<int>() const {
  if (is_null()) throw std::invalid_argument("NULL read as a number");
  return number<int>(c_str(), "an integer");
}

template <>
double PgField::as<double>() const {
  if (is_null()) throw std::invalid_argument("NULL read as a number");
  return number<double>(c_str(), "a number");
}

template <>
bool PgField::as<bool>() const {
  if (is_null()) throw std::invalid_argument("NULL read as a boolean");
  const std::string_view s(c_str());
  if (s == "t") return true;
  if (s == "f") return false;
  throw std::invalid_argument("not a boolean");
}

PgRow::PgRow(const pg_result* result, int row, int first, int end)
    : result_(result), row_(row), first_(first), end_(end < 0 ? PQnfields(result) : end) {}

PgResult::PgResult(pg_result* owned) : result_(owned, &PQclear) {}

int PgResult::size() const { return result_ ? PQntuples(result_.get()) : 0; }

std::int64_t PgResult::affected_rows() const {
  if (!result_) return 0;
  const char* n = PQcmdTuples(result_.get());
  return *n ? number<std::int64_t>(n, "a row count") : 0;
}

}  // namespace mediagen::db
