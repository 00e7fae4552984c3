#include <gtest/gtest.h>

#include "mediagen/cache/redis.hpp"

namespace mediagen::cache {
namespace {

TEST(RedisAddress, ReadsHostPortAndDatabase) {
  const auto a = RedisAddress::parse("redis://10.0.0.5:6380/3");
  EXPECT_EQ(a.host, "10.0.0.5");
  EXPECT_EQ(a.port, 6380);
  EXPECT_EQ(a.db, 3);
  EXPECT_TRUE(a.password.empty());
}

TEST(RedisAddress, DefaultsToLocalhostOnTheStandardPortAndDatabaseZero) {
  const auto a = RedisAddress::parse("redis://");
  EXPECT_EQ(a.host, "127.0.0.1");
  EXPECT_EQ(a.port, 6379);
  EXPECT_EQ(a.db, 0);
  const auto b = RedisAddress::parse("redis://cache.internal");
  EXPECT_EQ(b.host, "cache.internal");
  EXPECT_EQ(b.port, 6379);
}

TEST(RedisAddress, ReadsAPassword) {
  const auto a = RedisAddress::parse("redis://:s3cret@cache:7000/1");
  EXPECT_EQ(a.password, "s3cret");
  EXPECT_EQ(a.host, "cache");
  EXPECT_EQ(a.port, 7000);
  EXPECT_EQ(a.db, 1);
  const auto b = RedisAddress::parse("redis://user:p@ss@cache:7000");
  EXPECT_EQ(b.password, "p@ss");
  EXPECT_EQ(b.host, "cache");
}

TEST(RedisAddress, RefusesAnotherScheme) {
  EXPECT_THROW(RedisAddress::parse("http://127.0.0.1:6379"), RedisError);
  EXPECT_THROW(RedisAddress::parse("127.0.0.1:6379"), RedisError);
  EXPECT_THROW(RedisAddress::parse(""), RedisError);
}

}  // namespace
}  // namespace mediagen::cache
