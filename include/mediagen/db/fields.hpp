#pragma once
// Reading result fields the stores share: times selected as epoch microseconds, and nullable
// columns.
#include <chrono>
#include <cstdint>
#include <optional>

#include <pqxx/pqxx>

#include "mediagen/core/clock.hpp"

namespace mediagen::db {

inline TimePoint time_from_micros(const pqxx::field& f) {
  return TimePoint{std::chrono::duration_cast<TimePoint::duration>(std::chrono::microseconds{f.as<std::int64_t>()})};
}

template <class T>
std::optional<T> optional_of(const pqxx::field& f) {
  if (f.is_null()) return std::nullopt;
  return f.as<T>();
}

}  // namespace mediagen::db
