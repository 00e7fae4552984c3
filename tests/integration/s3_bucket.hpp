#pragma once
// A bucket of its own on the S3 server scripts/test starts (scripts/lib/swift.sh: a one-node
// Swift cluster with s3api, which checks signatures), read from
//   MEDIAGEN_TEST_S3_ENDPOINT, MEDIAGEN_TEST_S3_REGION, MEDIAGEN_TEST_S3_ACCESS_KEY,
//   MEDIAGEN_TEST_S3_SECRET_KEY
// A missing variable fails the test. The bucket is emptied and removed at teardown.
#include <gtest/gtest.h>

#include <memory>
#include <string>

#include "mediagen/storage/s3_store.hpp"
#include "storage/s3_http.hpp"
#include "support.hpp"

namespace mediagen::test {

inline std::unique_ptr<storage::S3Store> open_s3(storage::S3Options options) {
  auto opened = storage::S3Store::open(std::move(options));
  if (auto* problem = std::get_if<std::string>(&opened)) {
    ADD_FAILURE() << *problem;
    return nullptr;
  }
  return std::move(std::get<std::unique_ptr<storage::S3Store>>(opened));
}

class S3Bucket {
 public:
  // Call with ASSERT_NO_FATAL_FAILURE. Objects of the tests go under "env/".
  void create() {
    for (const char* name : {"MEDIAGEN_TEST_S3_ENDPOINT", "MEDIAGEN_TEST_S3_REGION", "MEDIAGEN_TEST_S3_ACCESS_KEY",
                             "MEDIAGEN_TEST_S3_SECRET_KEY"}) {
      ASSERT_TRUE(env(name)) << name << " is not set: run this test through scripts/test";
    }
    options = {.endpoint = *env("MEDIAGEN_TEST_S3_ENDPOINT"),
               .bucket = "mg-it-" + random_hex(),
               .prefix = "",
               .region = *env("MEDIAGEN_TEST_S3_REGION"),
               .access_key = *env("MEDIAGEN_TEST_S3_ACCESS_KEY"),
               .secret_key = *env("MEDIAGEN_TEST_S3_SECRET_KEY"),
               .part_bytes = 5 * 1024 * 1024,
               .attempts = 3,
               .backoff_base = std::chrono::milliseconds(10),
               .backoff_cap = std::chrono::milliseconds(50)};
    whole = open_s3(options);
    ASSERT_TRUE(whole);
    auto created = whole->send({.op = storage::S3Store::Op::put, .method = "PUT", .object = ""}, options.bucket);
    ASSERT_TRUE(created) << created.error().detail;
    ASSERT_EQ(created->status, 200) << created->body;
  }

  void remove() {
    if (!whole) return;
    auto emptied = whole->remove_prefix("env/");
    EXPECT_TRUE(emptied) << emptied.error().detail;
    auto removed = whole->send({.op = storage::S3Store::Op::remove, .method = "DELETE", .object = ""}, options.bucket);
    EXPECT_TRUE(removed && removed->status == 204) << (removed ? removed->body : removed.error().detail);
    whole.reset();
  }

  // The options of a store under "env/<prefix>".
  storage::S3Options under(const std::string& prefix) const {
    storage::S3Options o = options;
    o.prefix = "env/" + prefix;
    return o;
  }

  storage::S3Options options;              // the bucket without a prefix
  std::unique_ptr<storage::S3Store> whole;  // a store of those options
};

}  // namespace mediagen::test
