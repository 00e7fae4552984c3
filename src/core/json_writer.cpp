#include "mediagen/core/json_writer.hpp"

#include <charconv>
#include <cmath>

#include "mediagen/core/hex.hpp"
#include "mediagen/core/utf8.hpp"

namespace mediagen {

void append_json_string(std::string& out, std::string_view text) {
  out.reserve(out.size() + text.size() + 2);
  out += '"';
  std::size_t run = 0;  // start of the pending run of bytes that need no escape
  for (std::size_t i = 0; i < text.size();) {
    const auto c = static_cast<unsigned char>(text[i]);
    if (c >= 0x80) {
      // Text from outside may be anything: a byte that starts no valid sequence becomes U+FFFD,
      // so the output is always valid JSON (what nlohmann's error_handler_t::replace does).
      const std::size_t len = utf8_sequence_length(text.substr(i));
      if (len != 0) {
        i += len;
        continue;
      }
      out.append(text.data() + run, i - run);
      out += "\ufffd";
      run = ++i;
      continue;
    }
    if (c >= 0x20 && c != '"' && c != '\\') {
      ++i;
      continue;
    }
    out.append(text.data() + run, i - run);
    run = ++i;
    switch (c) {
      case '"': out += "\\\""; break;
      case '\\': out += "\\\\"; break;
      case '\n': out += "\\n"; break;
      case '\r': out += "\\r"; break;
      case '\t': out += "\\t"; break;
      default:
        out += "\\u00";
        append_hex(out, std::span<const std::uint8_t>(&c, 1));
    }
  }
  out.append(text.data() + run, text.size() - run);
  out += '"';
}

JsonWriter& JsonWriter::value(double v) {
  comma();
  if (!std::isfinite(v)) {
    out_ += "null";
    return *this;
  }
  char buf[32];
  // Shortest text that reads back as the same double (1500 stays "1500", 0.1 stays "0.1").
  auto [end, ec] = std::to_chars(buf, buf + sizeof buf, v);
  out_.append(buf, ec == std::errc{} ? end : buf);
  return *this;
}

}  // namespace mediagen
