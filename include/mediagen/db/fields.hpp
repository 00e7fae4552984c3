#pragma once
// Reading result fields the stores share: times selected as epoch microseconds, and nullable
// columns. `Field` is a libpqxx field or a db::PgField (pg_result.hpp): both read alike.
#include <chrono>
#include <cstdint>
#include <optional>

#include <pqxx/pqxx>

#include "mediagen/core/clock.hpp"

namespace mediagen::db {

template <class Field>
TimePoint time_from_micros(const Field& f) {
  return TimePoint{std::chrono::duration_cast<TimePoint::duration>(std::chrono::microseconds{f.template as<std::int64_t>()})};
}

template <class T, class Field>
std::optional<T> optional_of(const Field& f) {
  if (f.is_null()) return std::nullopt;
  return f.template as<T>();
}

}  // namespace mediagen::db
