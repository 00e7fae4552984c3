#include "mediagen/core/log.hpp"
#include "mediagen/core/json_text.hpp"

#include <nlohmann/json.hpp>
#include <spdlog/sinks/stdout_sinks.h>
#include <spdlog/spdlog.h>

#include "mediagen/core/time_zone.hpp"

namespace mediagen::log {
namespace {

spdlog::level::level_enum to_spd(Level level) {
  switch (level) {
    case Level::debug: return spdlog::level::debug;
    case Level::info: return spdlog::level::info;
    case Level::warn: return spdlog::level::warn;
    case Level::error: return spdlog::level::err;
  }
  return spdlog::level::info;
}

std::string_view name(Level level) {
  switch (level) {
    case Level::debug: return "debug";
    case Level::info: return "info";
    case Level::warn: return "warn";
    case Level::error: return "error";
  }
  return "info";
}

// The process logger, built by whichever thread logs first (tests log without init). A static of
// this library's own: its guard orders the construction before every use, on every thread.
spdlog::logger& logger() {
  static const std::shared_ptr<spdlog::logger> instance = [] {
    auto l = spdlog::stderr_logger_mt("mediagen");
    l->set_pattern("%v");
    l->set_level(spdlog::level::info);
    l->flush_on(spdlog::level::trace);  // lines are read by supervisors and tests as they come
    return l;
  }();
  return *instance;
}

}  // namespace

void init(std::string_view level) {
  Level l = Level::info;
  if (level == "debug" || level == "trace") l = Level::debug;
  if (level == "warn" || level == "warning") l = Level::warn;
  if (level == "error" || level == "err") l = Level::error;
  logger().set_level(to_spd(l));
}

bool enabled(Level level) { return logger().should_log(to_spd(level)); }

void write(Level level, std::string_view msg, std::span<const Field> fields) {
  if (!enabled(level)) return;
  nlohmann::json line;
  line["time"] = TimeZone::utc().format(std::chrono::system_clock::now());
  line["level"] = name(level);
  line["msg"] = msg;
  for (const auto& f : fields) {
    std::visit([&](const auto& v) { line[std::string(f.key)] = v; }, f.value);
  }
  logger().log(to_spd(level), "{}", to_json_text(line));
}

}  // namespace mediagen::log
