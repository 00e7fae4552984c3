// What a gift code's requests carry (src/reseller/reseller_form.hpp, include/mediagen/reseller/
// code_format.hpp). Input: line 1 a code as someone typed it, line 2 a POST /reseller/codes body,
// line 3 a list query string, the rest a sealed code.
// Properties:
//   - nothing crashes, throws or leaks, whatever the bytes;
//   - an accepted code is canonical (uppercase, the alphabet, dashes in place), parses to itself
//     and masks to "LUM-****-****-" and its own last four;
//   - an accepted body has a nominal of 1..kMaxNominal and a currency of 1..16 letters and
//     digits; a refused one is a 422 naming only the body's fields;
//   - an accepted list query has page >= 1 and per_page 1..100; a refusal is a 422;
//   - a sealed code the fuzzer wrote never opens (it cannot know the key), and a code sealed here
//     opens to itself.
#include <nlohmann/json.hpp>

#include "fuzz_support.hpp"
#include "mediagen/reseller/code_format.hpp"
#include "reseller/reseller_form.hpp"

namespace {

using namespace mediagen;
using namespace mediagen::reseller;

const CodeCipher& cipher() {
  static const CodeCipher c("fuzz-gift-code-secret");
  return c;
}

void code_line(std::string_view text) {
  const auto code = parse_gift_code(text);
  if (!code) return;
  FUZZ_CHECK(code->size() == kCodeLength);
  FUZZ_CHECK(parse_gift_code(*code) == code);
  for (std::size_t i = 4; i < code->size(); ++i) {
    const char c = (*code)[i];
    FUZZ_CHECK(i == 8 || i == 13 ? c == '-' : kCodeAlphabet.find(c) != std::string_view::npos);
  }
  FUZZ_CHECK(mask_gift_code(*code) == "LUM-****-****-" + code->substr(14));
  FUZZ_CHECK(cipher().open(cipher().seal(*code)) == code);
}

void body_line(std::string_view text) {
  const auto j = nlohmann::json::parse(text, nullptr, false);
  const auto read = read_issue_body(j.is_discarded() ? nullptr : &j);
  if (!read) {
    FUZZ_CHECK(read.error().status == 422);
    for (const auto& f : read.error().fields) {
      FUZZ_CHECK(f.field == "nominal" || f.field == "currency" || f.field == "activatable_at");
    }
    return;
  }
  FUZZ_CHECK(read->nominal >= 1 && read->nominal <= kMaxNominal);
  if (read->currency) FUZZ_CHECK(!read->currency->empty() && read->currency->size() <= kMaxCurrencyChars);
}

void query_line(std::string_view text) {
  const auto read = read_list_query(http::Query::parse(text));
  if (!read) {
    FUZZ_CHECK(read.error().status == 422);
    return;
  }
  FUZZ_CHECK(read->page >= 1 && read->per_page >= 1 && read->per_page <= kMaxPerPage);
  FUZZ_CHECK(read->offset() >= 0);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  fuzz::Lines lines{fuzz::as_text(data, size)};
  std::string_view line;
  if (lines.next(line)) code_line(line);
  if (lines.next(line)) body_line(line);
  if (lines.next(line)) query_line(line);
  FUZZ_CHECK(!cipher().open(lines.rest));
  return 0;
}
