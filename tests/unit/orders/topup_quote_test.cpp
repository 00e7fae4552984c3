// Top-up quote tokens (spec 7.1 fallback mode): a token accepts exactly the terms it was issued
// for, until its expiry; any other user, amount, request, secret, or byte changed does not verify.
#include "mediagen/orders/limits.hpp"

#include <gtest/gtest.h>

namespace mediagen::orders {
namespace {

using namespace std::chrono_literals;

const TimePoint kQuoteNow{std::chrono::sys_days{std::chrono::year{2026} / 11 / 26} + 9h + 500ms};
const std::string kFingerprint(64, 'a');
const QuoteTerms kTerms{.user = UserId{7}, .amount_minor = 1234, .fingerprint = kFingerprint};

TEST(TopupQuote, IssuedTokenHasTheDocumentedShape) {
  const QuoteSigner signer("secret");
  const auto quote = signer.issue(kTerms, kQuoteNow);
  const auto parsed = parse_quote_token(quote.token);
  ASSERT_TRUE(parsed);
  EXPECT_EQ(parsed->nonce.size(), 32U);
  EXPECT_EQ(parsed->mac.size(), 64U);
  // Whole seconds, never longer than the lifetime.
  EXPECT_EQ(quote.expires_at, std::chrono::floor<Seconds>(kQuoteNow + QuoteSigner::kLifetime));
  EXPECT_EQ(TimePoint{Seconds{parsed->expires_unix}}, quote.expires_at);
  EXPECT_LE(quote.expires_at - kQuoteNow, QuoteSigner::kLifetime);
}

TEST(TopupQuote, AcceptsItsOwnTermsUntilExpiryAndReturnsTheNonce) {
  const QuoteSigner signer("secret");
  const auto quote = signer.issue(kTerms, kQuoteNow);
  const auto nonce = signer.accept(quote.token, kTerms, kQuoteNow);
  ASSERT_TRUE(nonce);
  EXPECT_EQ(*nonce, std::string(parse_quote_token(quote.token)->nonce));
  EXPECT_TRUE(signer.accept(quote.token, kTerms, quote.expires_at - 1us));
  EXPECT_FALSE(signer.accept(quote.token, kTerms, quote.expires_at));
  EXPECT_FALSE(signer.accept(quote.token, kTerms, kQuoteNow + 301s));
}

TEST(TopupQuote, EveryOtherTermIsAMismatch) {
  const QuoteSigner signer("secret");
  const auto token = signer.issue(kTerms, kQuoteNow).token;
  QuoteTerms other = kTerms;
  other.user = UserId{8};
  EXPECT_FALSE(signer.accept(token, other, kQuoteNow));
  other = kTerms;
  other.amount_minor = 1235;
  EXPECT_FALSE(signer.accept(token, other, kQuoteNow));
  const std::string fingerprint(64, 'b');
  other = kTerms;
  other.fingerprint = fingerprint;
  EXPECT_FALSE(signer.accept(token, other, kQuoteNow));
  EXPECT_FALSE(QuoteSigner("another secret").accept(token, kTerms, kQuoteNow));
}

TEST(TopupQuote, AnyChangedCharacterDoesNotVerify) {
  const QuoteSigner signer("secret");
  const auto token = signer.issue(kTerms, kQuoteNow).token;
  for (std::size_t i = 0; i < token.size(); ++i) {
    std::string changed = token;
    changed[i] = changed[i] == '1' ? '2' : '1';
    EXPECT_FALSE(signer.accept(changed, kTerms, kQuoteNow)) << i;
  }
  EXPECT_FALSE(signer.accept(token + "0", kTerms, kQuoteNow));
  EXPECT_FALSE(signer.accept(token.substr(0, token.size() - 1), kTerms, kQuoteNow));
}

TEST(TopupQuote, ParserRefusesEverythingButTheExactShape) {
  const std::string nonce(32, 'f'), mac(64, '0');
  EXPECT_TRUE(parse_quote_token("q1.1764147900." + nonce + "." + mac));
  for (const std::string& bad : {std::string(), std::string("q1."), "q2.1764147900." + nonce + "." + mac,
                                "q1.01764147900." + nonce + "." + mac, "q1.-1." + nonce + "." + mac,
                                "q1.1234567890123." + nonce + "." + mac, "q1.." + nonce + "." + mac,
                                "q1.1764147900." + nonce + "." + mac + ".", "q1.1764147900." + nonce + mac,
                                "q1.1764147900." + std::string(32, 'F') + "." + mac,
                                "q1.1764147900." + nonce + "." + std::string(63, '0'),
                                "q1.1764147900." + nonce + ".." + mac}) {
    EXPECT_FALSE(parse_quote_token(bad)) << bad;
  }
}

}  // namespace
}  // namespace mediagen::orders
