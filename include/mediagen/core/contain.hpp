#pragma once
// Containment of unexpected failures at the boundaries where remote input is handled (see
// Boundary in counters.hpp): the failure is logged once with what identifies the request, socket
// or job, counted, and goes no further.
#include <exception>
#include <initializer_list>
#include <string>

#include "mediagen/core/counters.hpp"
#include "mediagen/core/log.hpp"

namespace mediagen {

// What an exception says about itself: what() for a std::exception, a fixed text otherwise.
std::string describe(const std::exception_ptr& e) noexcept;

// Logs (level error, msg "contained failure", with boundary, error and the given fields) and
// counts the failure. Never throws. counters may be null where a part has none.
void report_contained(InfraCounters* counters, Boundary boundary, const std::exception_ptr& e,
                      std::initializer_list<log::Field> fields = {}) noexcept;

// A completion for asio::co_spawn in place of asio::detached, which drops an exception without
// a word: the coroutine's failure is reported at its boundary.
struct ContainedCompletion {
  InfraCounters* counters;
  Boundary boundary;
  void operator()(const std::exception_ptr& e) const noexcept {
    if (e) report_contained(counters, boundary, e);
  }
};

inline ContainedCompletion contained(InfraCounters* counters, Boundary boundary) { return {counters, boundary}; }

}  // namespace mediagen
