#include "mediagen/engines/audio.hpp"

namespace mediagen::engines {

std::string_view to_string(FailureKind kind) {
  switch (kind) {
    case FailureKind::technical: return "technical";
    case FailureKind::policy: return "policy";
  }
  return "technical";
}

EngineError::EngineError(EngineFailure failure)
    : std::runtime_error(std::string(to_string(failure.kind)) + " engine failure: " + failure.detail),
      failure_(std::move(failure)) {}

void throw_exception_from_error(const EngineFailure& failure, const boost::source_location&) {
  throw EngineError(failure);
}

}  // namespace mediagen::engines
