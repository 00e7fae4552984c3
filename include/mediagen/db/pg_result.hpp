#pragma once
// A statement's result as libpq returns it (text format), read through the same small interface
// the stores use on libpqxx rows: r[i].as<T>(), c_str(), is_null(), slice(). Row decoders written
// as templates (order_row_store.hpp) read both kinds, so a read served from the I/O threads
// (async_pg.hpp) and one served on the blocking pool decode one shape.
#include <cstdint>
#include <memory>
#include <string>

struct pg_result;  // libpq's PGresult

namespace mediagen::db {

class PgField {
 public:
  PgField(const pg_result* result, int row, int column) : result_(result), row_(row), column_(column) {}
  bool is_null() const;
  // The text of the value ("" when NULL); lives as long as its result.
  const char* c_str() const;
  // Defined for std::string, std::int64_t, int, bool and double; throws std::invalid_argument on
  // a value that is not one (a NULL included: test is_null() first).
  template <class T>
  T as() const;

 private:
  const pg_result* result_;
  int row_;
  int column_;
};

template <>
std::string PgField::as<std::string>() const;
template <>
std::int64_t PgField::as<std::int64_t>() const;
template <>
int PgField::as<int>() const;
template <>
double PgField::as<double>() const;
template <>
bool PgField::as<bool>() const;

class PgRow {
 public:
  PgRow(const pg_result* result, int row, int first = 0, int end = -1);
  PgField operator[](int column) const { return PgField(result_, row_, first_ + column); }
  int size() const { return end_ - first_; }
  // Columns [from, to) of this row, numbered from 0 again.
  PgRow slice(int from, int to) const { return PgRow(result_, row_, first_ + from, first_ + to); }

 private:
  const pg_result* result_;
  int row_;
  int first_;
  int end_;
};

class PgResult {
 public:
  PgResult() = default;
  explicit PgResult(pg_result* owned);
  int size() const;
  bool empty() const { return size() == 0; }
  PgRow operator[](int row) const { return PgRow(result_.get(), row); }
  // Rows changed by an INSERT, UPDATE or DELETE.
  std::int64_t affected_rows() const;

  class iterator {
   public:
    iterator(const pg_result* r, int row) : result_(r), row_(row) {}
    PgRow operator*() const { return PgRow(result_, row_); }
    iterator& operator++() {
      ++row_;
      return *this;
    }
    bool operator!=(const iterator& other) const { return row_ != other.row_; }

   private:
    const pg_result* result_;
    int row_;
  };
  iterator begin() const { return iterator(result_.get(), 0); }
  iterator end() const { return iterator(result_.get(), size()); }

 private:
  std::shared_ptr<pg_result> result_;
};

}  // namespace mediagen::db
