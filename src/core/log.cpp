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

}  // namespace

void init(std::string_view level) {
  auto logger = spdlog::stderr_logger_mt("mediagen");
  logger->set_pattern("%v");
  Level l = Level::info;
  if (level == "debug" || level == "trace") l = Level::debug;
  if (level == "warn" || level == "warning") l = Level::warn;
  if (level == "error" || level == "err") l = Level::error;
  logger->set_level(to_spd(l));
  logger->flush_on(spdlog::level::trace);  // lines are read by supervisors and tests as they come
  spdlog::set_default_logger(logger);
}

bool enabled(Level level) { return spdlog::default_logger_raw()->should_log(to_spd(level)); }

void write(Level level, std::string_view msg, std::span<const Field> fields) {
  if (!enabled(level)) return;
  nlohmann::json line;
  line["time"] = TimeZone::utc().format(std::chrono::system_clock::now());
  line["level"] = name(level);
  line["msg"] = msg;
  for (const auto& f : fields) {
    std::visit([&](const auto& v) { line[std::string(f.key)] = v; }, f.value);
  }
  spdlog::default_logger_raw()->log(to_spd(level), "{}", to_json_text(line));
}

}  // namespace mediagen::log
