// The quote_token of POST /orders and order retry in the explicit-confirmation mode (spec 7.1).
// Properties:
//   - parse_quote_token and QuoteSigner::accept never crash or throw on any bytes;
//   - a token the parser accepts is exactly "q1.<digits>.<32 hex>.<64 hex>" and rebuilds to itself;
//   - nothing the fuzzer writes is accepted for the terms it was not signed with, and a token the
//     signer issues is accepted once rebuilt from its parts.
#include <cstdint>
#include <string>
#include <string_view>

#include "fuzz_support.hpp"
#include "mediagen/orders/limits.hpp"

namespace {

using namespace mediagen;
using namespace mediagen::orders;

const QuoteSigner& signer() {
  static const QuoteSigner s("fuzz-quote-secret");
  return s;
}

const TimePoint kNow{std::chrono::seconds{1'764'147'900}};

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view token = mediagen::fuzz::as_text(data, size);
  const std::string fingerprint(64, 'c');
  const QuoteTerms terms{.user = UserId{42}, .amount_minor = static_cast<std::int64_t>(size), .fingerprint = fingerprint};

  if (const auto parsed = parse_quote_token(token)) {
    const std::string rebuilt = "q1." + std::to_string(parsed->expires_unix) + "." + std::string(parsed->nonce) + "." +
                                std::string(parsed->mac);
    FUZZ_CHECK(rebuilt == token);
  }
  // The fuzzer cannot know the key: whatever it writes does not verify.
  FUZZ_CHECK(!signer().accept(token, terms, kNow));

  const auto issued = signer().issue(terms, kNow);
  const auto parts = parse_quote_token(issued.token);
  FUZZ_CHECK(parts.has_value());
  FUZZ_CHECK(signer().accept(issued.token, terms, kNow).has_value());
  return 0;
}
