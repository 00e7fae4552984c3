#include <gtest/gtest.h>

#include <string>

#include "mediagen/db/connection.hpp"

namespace mediagen::db {
namespace {

bool has(const std::string& s, const std::string& part) { return s.find(part) != std::string::npos; }

TEST(ConnectionString, AddsTheLimitsToAUrl) {
  const std::string s = connection_string("postgresql://app@127.0.0.1:5433/orders",
                                          {.connect_timeout_seconds = 2, .statement_timeout_ms = 1500, .lock_timeout_ms = 700});
  EXPECT_TRUE(has(s, "host='127.0.0.1'")) << s;
  EXPECT_TRUE(has(s, "port='5433'")) << s;
  EXPECT_TRUE(has(s, "dbname='orders'")) << s;
  EXPECT_TRUE(has(s, "user='app'")) << s;
  EXPECT_TRUE(has(s, "connect_timeout=2")) << s;
  EXPECT_TRUE(has(s, "keepalives=1")) << s;
  EXPECT_TRUE(has(s, "options='-c statement_timeout=1500 -c lock_timeout=700")) << s;
}

TEST(ConnectionString, KeepsWhatTheOperatorSetAndLetsTheirOptionsWin) {
  const std::string s =
      connection_string("postgresql:///mediagen?connect_timeout=9&options=-c%20statement_timeout%3D0", {});
  EXPECT_TRUE(has(s, "connect_timeout='9'")) << s;
  EXPECT_FALSE(has(s, "connect_timeout=3")) << s;
  // PostgreSQL applies -c settings in order: the operator's, last, wins.
  const auto ours = s.find("statement_timeout=8000");
  const auto theirs = s.find("statement_timeout=0");
  ASSERT_NE(ours, std::string::npos) << s;
  ASSERT_NE(theirs, std::string::npos) << s;
  EXPECT_LT(ours, theirs) << s;
}

TEST(ConnectionString, QuotesValuesSoNoneCanAddAParameter) {
  const std::string s = connection_string("host=localhost password='a\\' sslmode=disable'", {});
  EXPECT_TRUE(has(s, "password='a\\' sslmode=disable'")) << s;
  EXPECT_FALSE(has(s, "sslmode='disable'")) << s;
}

TEST(ConnectionString, RefusesAMalformedUrlWithoutEchoingIt) {
  try {
    (void)connection_string("postgresql://user:s3cret@host:notaport:/db?bogus_parameter=1", {});
    FAIL() << "a malformed URL was accepted";
  } catch (const Unavailable& e) {
    EXPECT_EQ(std::string(e.what()).find("s3cret"), std::string::npos) << e.what();
  }
}

}  // namespace
}  // namespace mediagen::db
