// The request headers of GET /ai/models (spec 4.7); http::if_none_match is also what /docs
// reads. Input: line 1 If-None-Match, line 2 X-Display-Currency. Properties:
//   - if_none_match and parse_display_currency never crash or throw on any bytes;
//   - an accepted display currency is exactly three uppercase ASCII letters;
//   - the current ETag itself, alone, weak, or after the fuzzer's list, always matches; "*" too;
//   - the list rendered in the chosen currency is JSON nlohmann reads, with that code.
#include <cstdint>
#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

#include "fuzz_support.hpp"
#include "mediagen/catalog/catalogue_json.hpp"

namespace {

using namespace mediagen;
using namespace mediagen::catalog;

const Catalogue& sample() {
  static const Catalogue c = [] {
    Catalogue out;
    out.version = "12-0a1b2c3d";
    out.asset = {AssetId{1}, "USD", "fiat", "US dollar", 2, true, true, 0, std::nullopt, TimePoint{}, TimePoint{}};
    Model m;
    m.key = "aurora-mini";
    m.prices[0] = 25;
    m.prices[2] = 125;
    out.models.push_back(m);
    out.rates.push_back({"EUR", "€", 2, 0.92});
    return out;
  }();
  return c;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  fuzz::Lines lines{fuzz::as_text(data, size)};
  std::string_view inm, currency;
  lines.next(inm);
  lines.next(currency);

  const auto code = parse_display_currency(currency);
  if (code) {
    FUZZ_CHECK(code->size() == 3);
    for (char ch : *code) FUZZ_CHECK(ch >= 'A' && ch <= 'Z');
  }
  const Display display = choose_display(sample(), code);
  const std::string tag = etag(sample().version, display);

  (void)if_none_match(inm, tag);
  FUZZ_CHECK(if_none_match(tag, tag));
  FUZZ_CHECK(if_none_match("W/" + tag, tag));
  FUZZ_CHECK(if_none_match("*", tag));
  // A tag the fuzzer wrote never equals ours unless it is ours.
  if (inm.find(tag) == std::string_view::npos && inm.find('*') == std::string_view::npos) {
    FUZZ_CHECK(!if_none_match(inm, tag));
  }

  const auto body = nlohmann::json::parse(list_json(sample(), display, TimeZone::utc()), nullptr, false);
  FUZZ_CHECK(!body.is_discarded());
  FUZZ_CHECK(body["display_currency"]["code"] == display.code);
  return 0;
}
