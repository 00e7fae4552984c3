#include "storage/s3_xml.hpp"

#include <gtest/gtest.h>

#include <string>

namespace mediagen::storage::s3 {
namespace {

TEST(S3Xml, ReadsAnErrorsCodeAndMessage) {
  const auto error = parse_error(
      "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<Error><Code>SignatureDoesNotMatch</Code>"
      "<Message>The request signature we calculated does not match</Message><RequestId>tx1</RequestId></Error>");
  ASSERT_TRUE(error);
  EXPECT_EQ(error->code, "SignatureDoesNotMatch");
  EXPECT_EQ(error->message, "The request signature we calculated does not match");
}

TEST(S3Xml, ReadsTheUploadIdOfANamespacedAnswer) {
  const auto id = parse_upload_id(
      "<InitiateMultipartUploadResult xmlns=\"http://s3.amazonaws.com/doc/2006-03-01/\"><Bucket>b</Bucket>"
      "<Key>k</Key><UploadId>VXBsb2FkIElE</UploadId></InitiateMultipartUploadResult>");
  EXPECT_EQ(id, std::optional<std::string>("VXBsb2FkIElE"));
  EXPECT_FALSE(parse_upload_id("<InitiateMultipartUploadResult><UploadId></UploadId></InitiateMultipartUploadResult>"));
}

TEST(S3Xml, TakesACompletionOnlyFromItsResultElement) {
  EXPECT_EQ(parse_complete("<CompleteMultipartUploadResult><ETag>&quot;abc-2&quot;</ETag>"
                           "</CompleteMultipartUploadResult>"),
            std::optional<std::string>("\"abc-2\""));
  // S3 may answer 200 and then an error body once the parts have been checked.
  EXPECT_FALSE(parse_complete("<Error><Code>InternalError</Code></Error>"));
}

TEST(S3Xml, ReadsAListPageAndItsContinuation) {
  const auto page = parse_list(
      "<ListBucketResult xmlns=\"http://s3.amazonaws.com/doc/2006-03-01/\"><Name>b</Name><Prefix>p/</Prefix>"
      "<IsTruncated>true</IsTruncated><NextContinuationToken>tok+/=</NextContinuationToken>"
      "<Contents><Key>p/a</Key><Size>1</Size></Contents><Contents><Key>p/b&amp;c</Key></Contents></ListBucketResult>");
  ASSERT_TRUE(page);
  EXPECT_EQ(page->keys, (std::vector<std::string>{"p/a", "p/b&c"}));
  EXPECT_TRUE(page->truncated);
  EXPECT_EQ(page->next_token, "tok+/=");
  const auto last = parse_list("<ListBucketResult><IsTruncated>false</IsTruncated></ListBucketResult>");
  ASSERT_TRUE(last);
  EXPECT_TRUE(last->keys.empty());
  EXPECT_FALSE(last->truncated);
}

TEST(S3Xml, RefusesATruncatedPageWithoutAToken) {
  EXPECT_FALSE(parse_list("<ListBucketResult><IsTruncated>true</IsTruncated></ListBucketResult>"));
}

TEST(S3Xml, RefusesMalformedForeignAndEntityLadenAnswers) {
  EXPECT_FALSE(parse_error(""));
  EXPECT_FALSE(parse_error("<Error><Code>x</Code>"));
  EXPECT_FALSE(parse_error("not xml at all"));
  EXPECT_FALSE(parse_list("<Error><Code>AccessDenied</Code></Error>"));
  EXPECT_FALSE(parse_error("<!DOCTYPE d [<!ENTITY a \"aaaaaaaaaa\"><!ENTITY b \"&a;&a;&a;&a;&a;&a;\">]>"
                           "<Error><Code>&b;</Code></Error>"));
  std::string deep;
  for (int i = 0; i < 20; ++i) deep += "<a>";
  for (int i = 0; i < 20; ++i) deep += "</a>";
  EXPECT_FALSE(parse_error(deep));
  EXPECT_FALSE(parse_error("<Error><Code>" + std::string(10000, 'x') + "</Code></Error>"));
}

}  // namespace
}  // namespace mediagen::storage::s3
