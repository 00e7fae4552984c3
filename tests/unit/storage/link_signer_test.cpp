#include "mediagen/storage/link_signer.hpp"

#include <gtest/gtest.h>

#include <stdexcept>
#include <string>

#include "storage/download_link.hpp"

namespace mediagen::storage {
namespace {

const std::string kKey = "orders/0f8fad5b-d9cb-469f-a165-70867728950e/result.mp3";
constexpr std::int64_t kExpiry = 1'900'000'000;

TEST(LinkSigner, AcceptsItsOwnSignature) {
  const LinkSigner signer("s3cret");
  const LinkClaims claims{kKey, kExpiry, false};
  const std::string signature = signer.sign(claims);
  EXPECT_EQ(signature.size(), 43u);  // 32 bytes of base64url without padding
  EXPECT_EQ(signature.find_first_not_of("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_"),
            std::string::npos);
  EXPECT_TRUE(signer.verify(claims, signature));
  EXPECT_TRUE(LinkSigner("s3cret").verify(claims, signature)) << "another instance with the same secret";
}

TEST(LinkSigner, RefusesEveryFlippedBitOfTheSignature) {
  const LinkSigner signer("s3cret");
  const LinkClaims claims{kKey, kExpiry, true};
  const std::string signature = signer.sign(claims);
  for (std::size_t i = 0; i < signature.size(); ++i) {
    for (int bit = 0; bit < 8; ++bit) {
      std::string flipped = signature;
      flipped[i] = static_cast<char>(flipped[i] ^ (1 << bit));
      EXPECT_FALSE(signer.verify(claims, flipped)) << "byte " << i << " bit " << bit;
    }
  }
}

TEST(LinkSigner, RefusesEveryFlippedBitOfThePath) {
  const LinkSigner signer("s3cret");
  const std::string signature = signer.sign({kKey, kExpiry, false});
  for (std::size_t i = 0; i < kKey.size(); ++i) {
    for (int bit = 0; bit < 8; ++bit) {
      std::string key = kKey;
      key[i] = static_cast<char>(key[i] ^ (1 << bit));
      EXPECT_FALSE(signer.verify({key, kExpiry, false}, signature)) << "byte " << i << " bit " << bit;
    }
  }
}

TEST(LinkSigner, RefusesEveryFlippedBitOfTheExpiryAndTheOtherDisposition) {
  const LinkSigner signer("s3cret");
  const std::string signature = signer.sign({kKey, kExpiry, false});
  for (int bit = 0; bit < 63; ++bit) {
    EXPECT_FALSE(signer.verify({kKey, kExpiry ^ (std::int64_t{1} << bit), false}, signature)) << "bit " << bit;
  }
  EXPECT_FALSE(signer.verify({kKey, kExpiry, true}, signature));
}

TEST(LinkSigner, RefusesAnotherSecretAnEmptySignatureAndPaddedForms) {
  const LinkClaims claims{kKey, kExpiry, false};
  const std::string signature = LinkSigner("s3cret").sign(claims);
  EXPECT_FALSE(LinkSigner("s3cret2").verify(claims, signature));
  EXPECT_FALSE(LinkSigner("s3cret").verify(claims, ""));
  EXPECT_FALSE(LinkSigner("s3cret").verify(claims, signature + "="));
  EXPECT_FALSE(LinkSigner("s3cret").verify(claims, signature.substr(0, 42)));
}

TEST(LinkSigner, KeepsPathAndExpiryApartInTheSignedMessage) {
  const LinkSigner signer("s3cret");
  // Moving digits between the fields must not give the same message.
  EXPECT_NE(signer.sign({"a1", 23, false}), signer.sign({"a", 123, false}));
}

TEST(LinkSigner, RefusesAnEmptySecret) { EXPECT_THROW(LinkSigner(""), std::invalid_argument); }

TEST(DownloadLink, BuildsTheUrlAndParsesItBack) {
  const LinkClaims claims{kKey, kExpiry, true};
  const std::string url = link_url("https://media.example/api/storage/download", claims, "sig-_123");
  EXPECT_EQ(url,
            "https://media.example/api/storage/download?path=orders%2F0f8fad5b-d9cb-469f-a165-70867728950e%2F"
            "result.mp3&expires=1900000000&download=1&signature=sig-_123");
  const auto link = parse_link_query(url.substr(url.find('?') + 1));
  ASSERT_TRUE(link);
  EXPECT_EQ(link->key, kKey);
  EXPECT_EQ(link->expires_at, kExpiry);
  EXPECT_TRUE(link->download);
  EXPECT_EQ(link->signature, "sig-_123");
}

TEST(DownloadLink, RefusesMissingRepeatedAndMalformedParameters) {
  const std::string ok = "path=a&expires=1900000000&download=0&signature=x";
  EXPECT_TRUE(parse_link_query(ok));
  EXPECT_TRUE(parse_link_query(ok + "&utm=1")) << "unknown parameters are ignored";
  for (const std::string query : {
           "expires=1900000000&download=0&signature=x", "path=a&download=0&signature=x",
           "path=a&expires=1900000000&signature=x", "path=a&expires=1900000000&download=0",
           "path=a&path=b&expires=1900000000&download=0&signature=x",
           "path=a&expires=1900000000&download=0&signature=x&signature=y",
           "path=a&expires=01900000000&download=0&signature=x", "path=a&expires=+1900000000&download=0&signature=x",
           "path=a&expires=-1&download=0&signature=x", "path=a&expires=19e8&download=0&signature=x",
           "path=a&expires=&download=0&signature=x", "path=a&expires=9999999999999999999&download=0&signature=x",
           "path=a&expires=1900000000&download=true&signature=x", "path=a&expires=1900000000&download=&signature=x",
           "path=a&expires=1900000000&download=2&signature=x", "",
       }) {
    EXPECT_FALSE(parse_link_query(query)) << query;
  }
}

TEST(DownloadLink, DecodesAnEncodedTraversalSoTheKeyRulesSeeIt) {
  const auto link = parse_link_query("path=..%2Fetc%2Fpasswd&expires=1&download=0&signature=x");
  ASSERT_TRUE(link);
  EXPECT_EQ(link->key, "../etc/passwd");
}

TEST(DownloadLink, RefusesEveryEncodingButTheOneItIssues) {
  for (const std::string path : {"orders%2fx.mp3", "%6Frders%2Fx.mp3", "orders/x.mp3", "%2e%2e%2Fx", "..%5cx",
                                 "a+b", "a%41", "a%2", "a%"}) {
    EXPECT_FALSE(parse_link_query("path=" + path + "&expires=1&download=0&signature=x")) << path;
  }
  EXPECT_FALSE(parse_link_query("path=a&expires=%31&download=0&signature=x"));
  EXPECT_FALSE(parse_link_query("path=a&expires=1&download=%30&signature=x"));
  EXPECT_FALSE(parse_link_query("path=a&expires=1&download=0&signature=x%2D"));
  EXPECT_FALSE(parse_link_query("p%61th=a&expires=1&download=0&signature=x")) << "names are not decoded";
}

TEST(DownloadLink, PercentEncodesEverythingButUnreservedCharacters) {
  EXPECT_EQ(percent_encode("a-b_c.d~e/f g%h"), "a-b_c.d~e%2Ff%20g%25h");
}

}  // namespace
}  // namespace mediagen::storage
