#pragma once
// JSON-lines logging on stderr: {"time":...,"level":...,"msg":...,<fields>}.
#include <cstdint>
#include <initializer_list>
#include <span>
#include <string_view>
#include <variant>

namespace mediagen::log {

enum class Level { debug, info, warn, error };

struct Field {
  std::string_view key;
  std::variant<std::string_view, std::int64_t, double, bool> value;
  Field(std::string_view k, std::string_view v) : key(k), value(v) {}
  Field(std::string_view k, const char* v) : key(k), value(std::string_view(v)) {}
  Field(std::string_view k, std::int64_t v) : key(k), value(v) {}
  Field(std::string_view k, int v) : key(k), value(std::int64_t{v}) {}
  Field(std::string_view k, std::size_t v) : key(k), value(static_cast<std::int64_t>(v)) {}
  Field(std::string_view k, double v) : key(k), value(v) {}
  Field(std::string_view k, bool v) : key(k), value(v) {}
};

// Configures the process logger once, at start-up; an unknown level name means info.
void init(std::string_view level);
bool enabled(Level level);
void write(Level level, std::string_view msg, std::span<const Field> fields);
inline void write(Level level, std::string_view msg, std::initializer_list<Field> fields) {
  write(level, msg, std::span<const Field>(fields.begin(), fields.size()));
}

inline void debug(std::string_view msg, std::initializer_list<Field> f = {}) { write(Level::debug, msg, f); }
inline void info(std::string_view msg, std::initializer_list<Field> f = {}) { write(Level::info, msg, f); }
inline void warn(std::string_view msg, std::initializer_list<Field> f = {}) { write(Level::warn, msg, f); }
inline void error(std::string_view msg, std::initializer_list<Field> f = {}) { write(Level::error, msg, f); }

}  // namespace mediagen::log
