#include "mediagen/core/percent.hpp"

#include <boost/url/encode.hpp>
#include <boost/url/pct_string_view.hpp>
#include <boost/url/rfc/unreserved_chars.hpp>

#include "mediagen/core/hex.hpp"

namespace mediagen {

std::string escape_stray_percent(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  for (std::size_t i = 0; i < text.size(); ++i) {
    out += text[i];
    const bool escape = i + 2 < text.size() && hex_value(text[i + 1]) >= 0 && hex_value(text[i + 2]) >= 0;
    if (text[i] == '%' && !escape) out += "25";
  }
  return out;
}

std::string percent_decode(std::string_view text, bool plus_is_space) {
  // The common case, on every request's path: nothing to decode, one copy.
  if (text.find('%') == std::string_view::npos && (!plus_is_space || text.find('+') == std::string_view::npos)) {
    return std::string(text);
  }
  const std::string escaped = escape_stray_percent(text);
  boost::urls::encoding_opts options;
  options.space_as_plus = plus_is_space;
  // Cannot fail: every '%' now starts an escape.
  return boost::urls::make_pct_string_view(escaped).value().decode(options);
}

std::string percent_encode(std::string_view text) { return boost::urls::encode(text, boost::urls::unreserved_chars); }

}  // namespace mediagen
