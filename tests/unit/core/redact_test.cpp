#include <gtest/gtest.h>

#include "mediagen/core/redact.hpp"

namespace mediagen {
namespace {

TEST(RedactUrl, HidesTheUserinfoPassword) {
  EXPECT_EQ(redact_url("redis://:S3cret@cache:6379/2"), "redis://:***@cache:6379/2");
  EXPECT_EQ(redact_url("redis://user:S3cret@cache"), "redis://user:***@cache");
  EXPECT_EQ(redact_url("postgresql://mg:S3cret@db.example:5432/mediagen?sslmode=require"),
            "postgresql://mg:***@db.example:5432/mediagen?sslmode=require");
  EXPECT_EQ(redact_url("rediss://:S3cret@h"), "rediss://:***@h");
}

TEST(RedactUrl, HidesAUserinfoWithoutColonWhichRedisReadsAsAPassword) {
  EXPECT_EQ(redact_url("redis://S3cret@cache"), "redis://***@cache");
  EXPECT_EQ(redact_url("S3cret@cache"), "***@cache");  // no scheme at all
  EXPECT_EQ(redact_url(":S3cret@cache:6379"), ":***@cache:6379");
}

TEST(RedactUrl, HidesPasswordsHoldingSeparators) {
  EXPECT_EQ(redact_url("redis://:p@ss/w:rd@cache/0"), "redis://:***@cache/0");
  EXPECT_EQ(redact_url("postgresql://mg:S3cret%40x@db/m"), "postgresql://mg:***@db/m");
}

TEST(RedactUrl, HidesPasswordParameters) {
  EXPECT_EQ(redact_url("postgresql://db/m?user=mg&password=S3cret&sslmode=require"),
            "postgresql://db/m?user=mg&password=***&sslmode=require");
  EXPECT_EQ(redact_url("host=db user=mg password=S3cret dbname=m"), "host=db user=mg password=*** dbname=m");
  EXPECT_EQ(redact_url("host=db PASSWORD='S3 cr\\'et' dbname=m"), "host=db PASSWORD=*** dbname=m");
  EXPECT_EQ(redact_url("password=S3cret"), "password=***");
  EXPECT_EQ(redact_url("host=db password=p@ss dbname=m"), "host=db password=*** dbname=m");
}

TEST(RedactUrl, LeavesWhatHoldsNoPassword) {
  for (const char* url : {"redis://127.0.0.1:6379/0", "", "not a url", "host=db dbname=m", "postgresql://db/m?mypassword=x",
                          "postgresql://[::1]:5432/m"}) {
    EXPECT_EQ(redact_url(url), url) << url;
  }
}

TEST(RedactSecrets, HidesThePasswordWhereverALibraryQuotedIt) {
  EXPECT_EQ(redact_secrets(R"(invalid percent-encoded token: "S3cret%zz")", "postgresql://u:S3cret%zz@h/d"),
            R"(invalid percent-encoded token: "***")");
  EXPECT_EQ(redact_secrets("password S3cret@x refused", "postgresql://u:S3cret%40x@h/d"), "password *** refused");
  EXPECT_EQ(redact_secrets("bad value 'S3 cret'", "host=h password='S3 cret'"), "bad value ***");
  EXPECT_EQ(redact_secrets("bad value S3 cret", "host=h password='S3 cret'"), "bad value ***");
  EXPECT_EQ(redact_secrets("S3cret S3cret", "redis://:S3cret@h"), "*** ***");
  EXPECT_EQ(redact_secrets("connection refused", "redis://:S3cret@h"), "connection refused");
  EXPECT_EQ(redact_secrets("anything", "redis://h"), "anything");
}

}  // namespace
}  // namespace mediagen
