#include <gtest/gtest.h>

#include <string>

#include "mediagen/core/api_error.hpp"
#include "mediagen/storage/object_store.hpp"
#include "storage/storage_errors.hpp"

namespace mediagen::storage {
namespace {

const std::string kOrder = "orders/0f8fad5b-d9cb-469f-a165-70867728950e";

TEST(StorageKey, AcceptsTheKeysOrdersUse) {
  EXPECT_TRUE(is_valid_key(kOrder + "/result.mp3"));
  EXPECT_TRUE(is_valid_key(kOrder + "/result.srt"));
  EXPECT_TRUE(is_valid_key(kOrder + "/chunks/7c9e6679-7425-40de-944b-e07fc1f90ae7.mp3"));
  EXPECT_TRUE(is_valid_key("a"));
  EXPECT_TRUE(is_valid_key("A-Z_a.z-0.9"));
  EXPECT_TRUE(is_valid_key("...a/b..c"));  // dots inside a name are only dots
}

TEST(StorageKey, RefusesTraversalInEveryForm) {
  for (const std::string key : {
           "..", ".", "../etc/passwd", "orders/../../etc/passwd", "orders/..", "orders/./result.mp3",
           "orders/x/../../../etc/shadow",
           // percent-encoded forms, as a client might send them undecoded
           "%2e%2e/etc/passwd", "orders/%2e%2e%2fetc", "..%2fetc", "..%5cetc", "%2E%2E%2F", "orders%2f..%2f..",
           // backslashes are no separator here, and no key character either
           "..\\etc\\passwd", "orders\\..\\x", "orders/x\\y.mp3",
       }) {
    EXPECT_FALSE(is_valid_key(key)) << key;
  }
}

TEST(StorageKey, RefusesAbsoluteAndMalformedPaths) {
  for (const std::string key : {"", "/", "/etc/passwd", "//etc/passwd", "orders//x.mp3", "orders/x.mp3/",
                                "orders/x.mp3//", "C:/x", "~/x", "orders/x y.mp3", "orders/x+y.mp3",
                                "orders/x?y", "orders/x#y", "orders/\xc3\xa9.mp3", "orders/x\n.mp3"}) {
    EXPECT_FALSE(is_valid_key(key)) << key;
  }
}

TEST(StorageKey, RefusesANulAnywhere) {
  EXPECT_FALSE(is_valid_key(std::string("orders/x.mp3\0", 13)));
  EXPECT_FALSE(is_valid_key(std::string("orders/x\0/../../etc/passwd", 26)));
  EXPECT_FALSE(is_valid_key(std::string("\0", 1)));
}

TEST(StorageKey, BoundsTheLengthTheSegmentsAndTheDepth) {
  EXPECT_TRUE(is_valid_key(std::string(kMaxSegmentBytes, 'a')));
  EXPECT_FALSE(is_valid_key(std::string(kMaxSegmentBytes + 1, 'a')));

  std::string deep = "a";
  for (std::size_t i = 1; i < kMaxKeySegments; ++i) deep += "/a";
  EXPECT_TRUE(is_valid_key(deep));
  EXPECT_FALSE(is_valid_key(deep + "/a"));

  std::string longest;
  while (longest.size() + 101 <= kMaxKeyBytes) longest += (longest.empty() ? "" : "/") + std::string(100, 'b');
  longest += "/" + std::string(kMaxKeyBytes - longest.size() - 1, 'c');
  ASSERT_EQ(longest.size(), kMaxKeyBytes);
  EXPECT_TRUE(is_valid_key(longest));
  EXPECT_FALSE(is_valid_key(longest + "c"));
}

TEST(StorageKey, TakesAPrefixOnlyAsAFolderOfKeys) {
  EXPECT_TRUE(is_valid_prefix(kOrder + "/"));
  EXPECT_TRUE(is_valid_prefix("orders/"));
  EXPECT_FALSE(is_valid_prefix(kOrder));
  EXPECT_FALSE(is_valid_prefix("/"));
  EXPECT_FALSE(is_valid_prefix(""));
  EXPECT_FALSE(is_valid_prefix("../"));
  EXPECT_FALSE(is_valid_prefix("orders/../"));
  EXPECT_FALSE(is_valid_prefix("/orders/"));
  EXPECT_FALSE(is_valid_prefix("orders//"));
}

TEST(StorageKey, NamesTheLastSegmentAsTheBasename) {
  EXPECT_EQ(key_basename(kOrder + "/result.mp3"), "result.mp3");
  EXPECT_EQ(key_basename("result.srt"), "result.srt");
}

TEST(StorageErrors, HaveTheirStatusThePlainShapeAndBothTexts) {
  const ApiError invalid = link_invalid();
  const ApiError expired = link_expired();
  const ApiError range = range_not_satisfiable(1234);
  EXPECT_EQ(invalid.status, 403);
  EXPECT_EQ(expired.status, 410);
  EXPECT_EQ(range.status, 416);
  for (const ApiError* e : {&invalid, &expired, &range}) {
    EXPECT_EQ(e->shape, ErrorShape::plain);
    EXPECT_NE(render(e->message, Locale::en), e->message.key);
    EXPECT_NE(render(e->message, Locale::ru), e->message.key);
  }
  ASSERT_FALSE(range.headers.empty());
  EXPECT_EQ(range.headers.front(), (std::pair<std::string, std::string>{"Content-Range", "bytes */1234"}));
  const Message path_message{"validation.storage_path", {{"attribute", "path"}}};
  EXPECT_NE(render(path_message, Locale::en), path_message.key);
  EXPECT_NE(render(path_message, Locale::ru), path_message.key);
}

}  // namespace
}  // namespace mediagen::storage
