#pragma once
// What the fuzz targets share: a property check that libFuzzer reports as a crash (with the
// input that broke it), and the reading of an input as lines or as a byte stream.
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string_view>

// A failed property aborts: libFuzzer stops, saves the input and prints the message above the
// stack trace.
#define FUZZ_CHECK(condition) \
  ((condition) ? static_cast<void>(0) : ::mediagen::fuzz::fail(#condition, __FILE__, __LINE__))

namespace mediagen::fuzz {

[[noreturn]] inline void fail(const char* condition, const char* file, int line) {
  std::fprintf(stderr, "fuzz property violated: %s (%s:%d)\n", condition, file, line);
  std::abort();
}

inline std::string_view as_text(const std::uint8_t* data, std::size_t size) {
  return {reinterpret_cast<const char*>(data), size};
}

// Splits an input into lines ('\n'); next() is false once nothing is left. The seed corpora of
// the targets with several fields are plain text, one field a line.
struct Lines {
  std::string_view rest;
  bool next(std::string_view& line) {
    if (rest.data() == nullptr) return false;
    const auto nl = rest.find('\n');
    line = rest.substr(0, nl);
    rest = nl == std::string_view::npos ? std::string_view{} : rest.substr(nl + 1);
    return true;
  }
};

// Reads little-endian integers from the front of an input; zeros once it runs out.
struct Bytes {
  std::string_view rest;
  std::uint8_t u8() {
    if (rest.empty()) return 0;
    const auto v = static_cast<std::uint8_t>(rest.front());
    rest.remove_prefix(1);
    return v;
  }
  std::uint16_t u16() { return static_cast<std::uint16_t>(u8() | (u8() << 8)); }
};

}  // namespace mediagen::fuzz
