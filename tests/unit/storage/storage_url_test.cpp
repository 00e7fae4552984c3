#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <string>

#include "mediagen/storage/open_store.hpp"

namespace mediagen::storage {
namespace {

StorageUrl parsed(std::string_view url) {
  auto result = parse_storage_url(url);
  EXPECT_TRUE(std::holds_alternative<StorageUrl>(result)) << url << ": " << std::get<std::string>(result);
  return std::holds_alternative<StorageUrl>(result) ? std::get<StorageUrl>(result) : StorageUrl{};
}

std::string refused(std::string_view url) {
  auto result = parse_storage_url(url);
  EXPECT_TRUE(std::holds_alternative<std::string>(result)) << url;
  return std::holds_alternative<std::string>(result) ? std::get<std::string>(result) : std::string();
}

TEST(StorageUrl, ReadsAbsoluteAndRelativeFolders) {
  EXPECT_EQ(parsed("file:///var/lib/mediagen").path, "/var/lib/mediagen");
  // The default is file:// + MEDIAGEN_STORAGE_DIR, and that folder may be relative.
  EXPECT_EQ(parsed("file://var/storage").path, "var/storage");
  EXPECT_EQ(parsed("file:///srv").kind, StorageUrl::Kind::file);
}

TEST(StorageUrl, ReadsABucketAndAnOptionalPrefix) {
  const StorageUrl bare = parsed("s3://media");
  EXPECT_EQ(bare.kind, StorageUrl::Kind::s3);
  EXPECT_EQ(bare.bucket, "media");
  EXPECT_EQ(bare.prefix, "");
  const StorageUrl nested = parsed("s3://media/prod/eu/");
  EXPECT_EQ(nested.bucket, "media");
  EXPECT_EQ(nested.prefix, "prod/eu");
}

TEST(StorageUrl, RefusesOtherSchemesAndMalformedParts) {
  EXPECT_NE(refused("http://media").find("s3://BUCKET"), std::string::npos);
  EXPECT_NE(refused("s3://").find("no bucket"), std::string::npos);
  EXPECT_FALSE(refused("s3://media/../up").empty());
  EXPECT_FALSE(refused("s3://user@media").empty());
  EXPECT_FALSE(refused("s3://media?x=1").empty());
  EXPECT_FALSE(refused("file://").empty());
  EXPECT_FALSE(refused("").empty());
}

TEST(OpenStore, NamesTheSettingAtFault) {
  auto no_keys = open_store({.url = "s3://media", .dir = "unused"});
  EXPECT_FALSE(no_keys.store);
  EXPECT_EQ(no_keys.error, "MEDIAGEN_STORAGE_URL s3://media: AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY are required");
  auto bad = open_store({.url = "ftp://x", .dir = "unused"});
  EXPECT_EQ(bad.error.rfind("MEDIAGEN_STORAGE_URL ftp://x: ", 0), 0u) << bad.error;
}

TEST(OpenStore, OpensTheLocalFolderByDefaultAndAnS3StoreByUrl) {
  const auto dir = std::filesystem::temp_directory_path() / ("mediagen-open-store-" + std::to_string(::getpid()));
  auto local = open_store({.url = "", .dir = dir.string()});
  ASSERT_TRUE(local.store) << local.error;
  EXPECT_EQ(local.s3, nullptr);
  EXPECT_TRUE(std::filesystem::is_directory(dir));
  std::filesystem::remove_all(dir);
  auto s3 = open_store({.url = "s3://media/p", .dir = dir.string(), .aws_endpoint_url = "http://127.0.0.1:1",
                        .aws_access_key_id = "k", .aws_secret_access_key = "s"});
  ASSERT_TRUE(s3.store) << s3.error;
  EXPECT_EQ(s3.s3, s3.store.get());
  EXPECT_FALSE(std::filesystem::exists(dir));
}

}  // namespace
}  // namespace mediagen::storage
