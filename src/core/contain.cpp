#include "mediagen/core/contain.hpp"

#include <cstdio>
#include <vector>

namespace mediagen {

std::string describe(const std::exception_ptr& e) noexcept {
  try {
    try {
      std::rethrow_exception(e);
    } catch (const std::exception& ex) {
      return ex.what();
    } catch (...) {
      return "an exception of an unknown type";
    }
  } catch (...) {
    return {};  // copying what() ran out of memory
  }
}

void report_contained(InfraCounters* counters, Boundary boundary, const std::exception_ptr& e,
                      std::initializer_list<log::Field> fields) noexcept {
  if (counters) counters->count_contained(boundary);
  try {
    const std::string error = describe(e);
    std::vector<log::Field> all{{"boundary", to_string(boundary)}, {"error", std::string_view(error)}};
    all.insert(all.end(), fields.begin(), fields.end());
    log::write(log::Level::error, "contained failure", all);
  } catch (...) {
    std::fputs("{\"level\":\"error\",\"msg\":\"contained failure\"}\n", stderr);
  }
}

}  // namespace mediagen
