// Signature V4 against the examples AWS documents for S3 ("Signature Calculations for the
// Authorization Header" and "Query String Authentication"), with their example credentials.
#include "storage/s3_sign.hpp"

#include <gtest/gtest.h>

#include <string>

#include "mediagen/storage/s3_store.hpp"

namespace mediagen::storage::s3 {
namespace {

const Credentials kAws{"AKIAIOSFODNN7EXAMPLE", "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY", "us-east-1"};
const std::string kEmptyHash = "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855";
const std::string kDate = "20130524T000000Z";
const std::string kHost = "examplebucket.s3.amazonaws.com";

TEST(S3Sign, WritesTheAmzDateOfAUnixTime) { EXPECT_EQ(amz_date(1369353600), kDate); }

TEST(S3Sign, HashesTheEmptyPayloadAsAwsDoes) { EXPECT_EQ(sha256_hex(""), kEmptyHash); }

TEST(S3Sign, EncodesAllButTheUnreservedCharacters) {
  EXPECT_EQ(uri_encode("a/b c$~._-", true), "a/b%20c%24~._-");
  EXPECT_EQ(uri_encode("a/b", false), "a%2Fb");
  EXPECT_EQ(uri_encode("\xc3\xa9", false), "%C3%A9");
}

TEST(S3Sign, SignsTheGetObjectExample) {
  const CanonicalInput in{.method = "GET",
                          .path = "/test.txt",
                          .query = {},
                          .headers = {{"host", kHost}, {"range", "bytes=0-9"}, {"x-amz-content-sha256", kEmptyHash},
                                      {"x-amz-date", kDate}},
                          .payload_hash = kEmptyHash,
                          .amz_date = kDate};
  EXPECT_EQ(canonical_request(in),
            "GET\n/test.txt\n\nhost:examplebucket.s3.amazonaws.com\nrange:bytes=0-9\n"
            "x-amz-content-sha256:e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855\n"
            "x-amz-date:20130524T000000Z\n\nhost;range;x-amz-content-sha256;x-amz-date\n" +
                kEmptyHash);
  EXPECT_EQ(sha256_hex(canonical_request(in)), "7344ae5b7ee6c3e7e6b0fe0640412a37625d1fbfff95c48bbb2dc43964946972");
  EXPECT_EQ(authorization(kAws, in),
            "AWS4-HMAC-SHA256 Credential=AKIAIOSFODNN7EXAMPLE/20130524/us-east-1/s3/aws4_request,"
            "SignedHeaders=host;range;x-amz-content-sha256;x-amz-date,"
            "Signature=f0e8bdb87c964420e857bd35b5d6ed310bd44f0170aba48dd91039c6036bdb41");
}

TEST(S3Sign, SignsThePutObjectExampleWithAnEncodedName) {
  const std::string body = "Welcome to Amazon S3.";
  const std::string hash = sha256_hex(body);
  EXPECT_EQ(hash, "44ce7dd67c959e0d3524ffac1771dfbba87d2b6b4b4e99e42034a8b803f8b072");
  const CanonicalInput in{.method = "PUT",
                          .path = "/test$file.text",
                          .query = {},
                          .headers = {{"date", "Fri, 24 May 2013 00:00:00 GMT"}, {"host", kHost},
                                      {"x-amz-content-sha256", hash}, {"x-amz-date", kDate},
                                      {"x-amz-storage-class", "REDUCED_REDUNDANCY"}},
                          .payload_hash = hash,
                          .amz_date = kDate};
  EXPECT_EQ(signature(kAws, in), "98ad721746da40c64f1a55b78f14c238d841ea1380cd77a1b5971af0ece108bd");
}

TEST(S3Sign, SignsTheListObjectsExampleWithItsQuerySorted) {
  const CanonicalInput in{.method = "GET",
                          .path = "/",
                          .query = {{"prefix", "J"}, {"max-keys", "2"}},
                          .headers = {{"host", kHost}, {"x-amz-content-sha256", kEmptyHash}, {"x-amz-date", kDate}},
                          .payload_hash = kEmptyHash,
                          .amz_date = kDate};
  EXPECT_EQ(signature(kAws, in), "34b48302e7b5fa45bde8084f4b7868a86f0a534bc59db6670ed5711ef69dc6f7");
}

TEST(S3Sign, SignsTheLifecycleExampleWithAValuelessParameter) {
  const CanonicalInput in{.method = "GET",
                          .path = "/",
                          .query = {{"lifecycle", ""}},
                          .headers = {{"host", kHost}, {"x-amz-content-sha256", kEmptyHash}, {"x-amz-date", kDate}},
                          .payload_hash = kEmptyHash,
                          .amz_date = kDate};
  EXPECT_EQ(signature(kAws, in), "fea454ca298b7da1c68078a5d1bdbfbbe0d65c699e0f91ac7a200a0136783543");
}

TEST(S3Sign, PresignsTheQueryStringExample) {
  EXPECT_EQ(presign_query(kAws, kHost, "/test.txt", {}, kDate, 86400),
            "X-Amz-Algorithm=AWS4-HMAC-SHA256&X-Amz-Credential=AKIAIOSFODNN7EXAMPLE%2F20130524%2Fus-east-1%2Fs3%2F"
            "aws4_request&X-Amz-Date=20130524T000000Z&X-Amz-Expires=86400&X-Amz-SignedHeaders=host&X-Amz-Signature="
            "aeeed9bbccd4d02ee5c0109b86d86835f995330da4c265957d157751f604d404");
}

TEST(S3Sign, AnotherSecretGivesAnotherSignature) {
  Credentials other = kAws;
  other.secret_key += "x";
  EXPECT_NE(presign_query(other, kHost, "/test.txt", {}, kDate, 86400),
            presign_query(kAws, kHost, "/test.txt", {}, kDate, 86400));
}

TEST(S3Store, PresignsAPathStyleUrlWithTheDispositionAndTheLinksLifeCappedAtSevenDays) {
  auto opened = S3Store::open({.endpoint = "http://127.0.0.1:8080/", .bucket = "media", .prefix = "env/a/",
                               .access_key = "AKIAIOSFODNN7EXAMPLE", .secret_key = "secret"});
  const std::string url = std::get<std::unique_ptr<S3Store>>(opened)->presign_get("orders/x/result.mp3", true, 30 * 86400, 1369353600);
  EXPECT_EQ(url.rfind("http://127.0.0.1:8080/media/env/a/orders/x/result.mp3?", 0), 0u) << url;
  EXPECT_NE(url.find("X-Amz-Expires=604800&"), std::string::npos) << url;
  EXPECT_NE(url.find("response-content-disposition=attachment%3B%20filename%3D%22result.mp3%22"), std::string::npos)
      << url;
  EXPECT_NE(url.find("response-content-type=audio%2Fmpeg"), std::string::npos) << url;
  EXPECT_NE(url.find("&X-Amz-Signature="), std::string::npos) << url;
}

TEST(S3Store, RefusesOptionsItCannotUse) {
  auto refused = [](S3Options o) { return std::get<std::string>(S3Store::open(std::move(o))); };
  const S3Options good{.endpoint = "http://127.0.0.1:8080", .bucket = "media", .access_key = "k", .secret_key = "s"};
  EXPECT_NE(refused({.endpoint = good.endpoint, .bucket = "media"}).find("AWS_ACCESS_KEY_ID"), std::string::npos);
  S3Options bad_bucket = good;
  bad_bucket.bucket = "Bad_Bucket";
  EXPECT_NE(refused(bad_bucket).find("bucket 'Bad_Bucket'"), std::string::npos);
  S3Options bad_endpoint = good;
  bad_endpoint.endpoint = "ftp://host";
  EXPECT_NE(refused(bad_endpoint).find("AWS_ENDPOINT_URL"), std::string::npos);
  S3Options small_parts = good;
  small_parts.part_bytes = 1024;
  EXPECT_NE(refused(small_parts).find("part size"), std::string::npos);
  EXPECT_TRUE(std::holds_alternative<std::unique_ptr<S3Store>>(S3Store::open(good)));
}

}  // namespace
}  // namespace mediagen::storage::s3
