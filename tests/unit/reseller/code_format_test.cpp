#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <set>

#include "mediagen/reseller/code_format.hpp"
#include "mediagen/reseller/gift_codes.hpp"
#include "reseller/reseller_form.hpp"

namespace mediagen::reseller {
namespace {

TEST(GiftCodeFormat, FreshCodesHaveTheShapeAndNoLookalikes) {
  std::set<std::string> seen;
  for (int i = 0; i < 500; ++i) {
    const std::string code = make_gift_code();
    ASSERT_EQ(code.size(), kCodeLength);
    EXPECT_TRUE(code.starts_with("LUM-"));
    EXPECT_EQ(code[8], '-');
    EXPECT_EQ(code[13], '-');
    for (char c : {'0', 'O', '1', 'I'}) EXPECT_EQ(code.find(c, 4), std::string::npos) << code;
    EXPECT_EQ(parse_gift_code(code), code);
    seen.insert(code);
  }
  EXPECT_EQ(seen.size(), 500u);
}

TEST(GiftCodeFormat, ParseCanonicalisesWhatAPersonTypes) {
  EXPECT_EQ(parse_gift_code("  lum-abcd-efgh-jk23\n"), "LUM-ABCD-EFGH-JK23");
  EXPECT_FALSE(parse_gift_code("LUM-ABCD-EFGH-JK2"));       // short
  EXPECT_FALSE(parse_gift_code("LUM-ABCD-EFGH-JK230"));     // long
  EXPECT_FALSE(parse_gift_code("LUM-ABCD-EFGH-JK20"));      // 0 is not in the alphabet
  EXPECT_FALSE(parse_gift_code("LUM-ABCDEEFGH-JK23"));      // dash missing
  EXPECT_FALSE(parse_gift_code("XYZ-ABCD-EFGH-JK23"));
  EXPECT_FALSE(parse_gift_code(""));
  EXPECT_FALSE(parse_gift_code(std::string("LUM-ABCD-EFGH-JK2\0", 18)));
}

TEST(GiftCodeFormat, MaskKeepsOnlyTheLastFour) {
  EXPECT_EQ(mask_gift_code("LUM-ABCD-EFGH-JK23"), "LUM-****-****-JK23");
  const std::string code = make_gift_code();
  const std::string masked = mask_gift_code(code);
  EXPECT_EQ(masked.substr(0, 14), "LUM-****-****-");
  EXPECT_EQ(masked.substr(14), code.substr(14));
}

TEST(GiftCodeFormat, HashIsSha256Hex) {
  const auto h = gift_code_hash("LUM-ABCD-EFGH-JK23");
  EXPECT_EQ(h.size(), 64u);
  EXPECT_EQ(h, gift_code_hash("LUM-ABCD-EFGH-JK23"));
  EXPECT_NE(h, gift_code_hash("LUM-ABCD-EFGH-JK24"));
}

TEST(GiftCodeCipher, RoundTripAndTamperingAndOtherSecrets) {
  const CodeCipher cipher("a shared secret");
  const std::string code = make_gift_code();
  const std::string sealed = cipher.seal(code);
  EXPECT_EQ(sealed.find(code), std::string::npos);
  EXPECT_NE(sealed, cipher.seal(code));  // a fresh nonce each time
  EXPECT_EQ(cipher.open(sealed), code);
  EXPECT_EQ(CodeCipher("a shared secret").open(sealed), code);  // another instance, same secret
  EXPECT_FALSE(CodeCipher("another secret").open(sealed));
  std::string altered = sealed;
  altered[30] = altered[30] == 'a' ? 'b' : 'a';
  EXPECT_FALSE(cipher.open(altered));
  EXPECT_FALSE(cipher.open(""));
  EXPECT_FALSE(cipher.open("zz"));
  EXPECT_FALSE(cipher.open(std::string(100000, 'a')));
}

TEST(GiftCodeIssueBody, AcceptsTheContractBody) {
  const auto body = nlohmann::json::parse(R"({"nominal": 5000, "currency": "usd", "activatable_at": "2026-12-01T00:00:00+00:00"})");
  const auto read = read_issue_body(&body);
  ASSERT_TRUE(read);
  EXPECT_EQ(read->nominal, 5000);
  EXPECT_EQ(read->currency, "USD");
  EXPECT_TRUE(read->activatable_at.has_value());
  const auto minimal = nlohmann::json::parse(R"({"nominal": 1, "currency": null})");
  ASSERT_TRUE(read_issue_body(&minimal));
}

TEST(GiftCodeIssueBody, RefusesEachWrongFieldBy422) {
  const auto check = [](const char* text, std::vector<std::string> fields) {
    const auto body = nlohmann::json::parse(text);
    const auto read = read_issue_body(&body);
    ASSERT_FALSE(read) << text;
    EXPECT_EQ(read.error().status, 422);
    std::vector<std::string> got;
    for (const auto& f : read.error().fields) got.push_back(f.field);
    EXPECT_EQ(got, fields) << text;
  };
  check("{}", {"nominal"});
  check("[]", {"nominal"});
  check(R"({"nominal": "100"})", {"nominal"});
  check(R"({"nominal": 1.5})", {"nominal"});
  check(R"({"nominal": 0})", {"nominal"});
  check(R"({"nominal": -5})", {"nominal"});
  check(R"({"nominal": 18446744073709551615})", {"nominal"});
  check(R"({"nominal": 100, "currency": 5, "activatable_at": "tomorrow"})", {"currency", "activatable_at"});
  check(R"({"nominal": 100, "currency": "US D"})", {"currency"});
  EXPECT_FALSE(read_issue_body(nullptr));
}

TEST(GiftCodeListQuery, PagesAndStatus) {
  auto q = read_list_query(http::Query::parse("page=2&per_page=10&status=cancelled"));
  ASSERT_TRUE(q);
  EXPECT_EQ(q->offset(), 10);
  EXPECT_EQ(q->status, GiftCodeStatus::cancelled);
  EXPECT_FALSE(read_list_query(http::Query::parse("status=lost")));
  EXPECT_FALSE(read_list_query(http::Query::parse("per_page=101")));
}

}  // namespace
}  // namespace mediagen::reseller
