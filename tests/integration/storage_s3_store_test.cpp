// The S3 store against a real S3 server that checks signatures (s3_bucket.hpp): every test gets
// a bucket of its own.
#include <gtest/gtest.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <memory>
#include <string>

#include "mediagen/storage/s3_store.hpp"
#include "storage/s3_http.hpp"
#include "s3_bucket.hpp"

namespace mediagen::storage {
namespace {

constexpr std::uint64_t kMiB = 1024 * 1024;

std::string pattern_bytes(std::size_t n, unsigned seed) {
  std::string s(n, '\0');
  for (std::size_t i = 0; i < n; ++i) s[i] = static_cast<char>((i * 131 + seed + (i >> 12)) & 0xFF);
  return s;
}

// A loopback port nothing listens on: bound, then closed.
int dead_port() {
  const int fd = ::socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  ::bind(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr);
  socklen_t len = sizeof addr;
  ::getsockname(fd, reinterpret_cast<sockaddr*>(&addr), &len);
  ::close(fd);
  return ntohs(addr.sin_port);
}

// A loopback socket that listens and never answers: the kernel completes connections, nobody
// reads them. Closed when destroyed.
class SilentServer {
 public:
  SilentServer() : fd_(::socket(AF_INET, SOCK_STREAM, 0)) {
    sockaddr_in addr{};
    addr.sin_family = AF_INET;
    addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    ::bind(fd_, reinterpret_cast<sockaddr*>(&addr), sizeof addr);
    ::listen(fd_, 16);
    socklen_t len = sizeof addr;
    ::getsockname(fd_, reinterpret_cast<sockaddr*>(&addr), &len);
    port_ = ntohs(addr.sin_port);
  }
  ~SilentServer() { ::close(fd_); }
  SilentServer(const SilentServer&) = delete;
  SilentServer& operator=(const SilentServer&) = delete;
  int port() const { return port_; }

 private:
  int fd_;
  int port_ = 0;
};

class S3StoreTest : public ::testing::Test {
 protected:
  void SetUp() override {
    ASSERT_NO_FATAL_FAILURE(bucket.create());
    base = bucket.options;
    bucket_store = bucket.whole.get();
    store = test::open_s3(bucket.under("it"));
    ASSERT_TRUE(store);
  }

  void TearDown() override { bucket.remove(); }

  // The multipart uploads under way in the bucket (none are left once writers end).
  std::size_t uploads_under_way() {
    auto listed = bucket_store->send(
        {.op = S3Store::Op::list, .method = "GET", .object = "", .query = {{"uploads", ""}}, .max_body = kMiB},
        base.bucket);
    EXPECT_TRUE(listed && listed->status == 200);
    if (!listed) return 0;
    std::size_t count = 0;
    for (auto at = listed->body.find("<Upload>"); at != std::string::npos; at = listed->body.find("<Upload>", at + 1)) {
      ++count;
    }
    return count;
  }

  test::S3Bucket bucket;
  S3Options base;
  S3Store* bucket_store = nullptr;  // the bucket without a prefix
  std::unique_ptr<S3Store> store;   // under env/it/
};

TEST_F(S3StoreTest, PutsStatsReadsAndRemovesAnObject) {
  const std::string key = "orders/a/result.mp3";
  const std::string bytes = pattern_bytes(100000, 1);
  EXPECT_EQ(store->stat(key).value(), std::nullopt);
  ASSERT_TRUE(store->put(key, bytes));
  EXPECT_EQ(store->stat(key).value(), std::optional<std::uint64_t>(bytes.size()));
  EXPECT_EQ(bucket_store->stat("env/it/" + key).value(), std::optional<std::uint64_t>(bytes.size()))
      << "the key lies under the URL's prefix";
  EXPECT_EQ(store->read(key, 0, bytes.size()).value(), bytes);
  EXPECT_EQ(store->read(key, 99990, 100).value(), bytes.substr(99990));
  EXPECT_EQ(store->read(key, 100000, 10).value(), "");
  EXPECT_EQ(store->read("orders/a/missing.mp3", 0, 10).error().code, StoreErrc::not_found);
  EXPECT_EQ(store->open_reader("orders/a/missing.mp3").error().code, StoreErrc::not_found);
  EXPECT_TRUE(store->remove(key).value());
  EXPECT_FALSE(store->remove(key).value());
  EXPECT_EQ(store->stat(key).value(), std::nullopt);
}

TEST_F(S3StoreTest, StoresAnEmptyObject) {
  ASSERT_TRUE(store->put("orders/a/empty.vtt", ""));
  EXPECT_EQ(store->stat("orders/a/empty.vtt").value(), std::optional<std::uint64_t>(0));
  EXPECT_EQ(store->read("orders/a/empty.vtt", 0, 10).value(), "");
  auto reader = store->open_reader("orders/a/empty.vtt");
  ASSERT_TRUE(reader);
  EXPECT_EQ((*reader)->size(), 0u);
}

TEST_F(S3StoreTest, RefusesInvalidKeysWithoutARequest) {
  EXPECT_EQ(store->put("../x", "a").error().code, StoreErrc::invalid_key);
  EXPECT_EQ(store->stat("a//b").error().code, StoreErrc::invalid_key);
  EXPECT_EQ(store->remove_prefix("orders").error().code, StoreErrc::invalid_key);
}

TEST_F(S3StoreTest, WritesTwentyMebibytesAsAMultipartUploadVisibleOnlyOnCommit) {
  const std::string key = "orders/b/result.mp3";
  const std::string bytes = pattern_bytes(20 * kMiB + 12345, 2);
  auto writer = store->open_writer(key);
  ASSERT_TRUE(writer);
  for (std::size_t at = 0; at < bytes.size(); at += 700 * 1024) {
    ASSERT_TRUE((*writer)->write(std::string_view(bytes).substr(at, 700 * 1024)));
  }
  EXPECT_EQ((*writer)->written(), bytes.size());
  EXPECT_EQ(store->stat(key).value(), std::nullopt) << "nothing under the key before the commit";
  EXPECT_EQ(uploads_under_way(), 1u);
  ASSERT_TRUE((*writer)->commit());
  EXPECT_EQ(uploads_under_way(), 0u);
  EXPECT_EQ(store->stat(key).value(), std::optional<std::uint64_t>(bytes.size()));
  // Across the parts' seams, and whole through a pinned reader in pieces.
  EXPECT_EQ(store->read(key, 5 * kMiB - 10, 20).value(), bytes.substr(5 * kMiB - 10, 20));
  auto reader = store->open_reader(key);
  ASSERT_TRUE(reader);
  ASSERT_EQ((*reader)->size(), bytes.size());
  std::string back;
  for (std::uint64_t at = 0; at < bytes.size(); at += 3 * kMiB) {
    auto piece = (*reader)->read(at, 3 * kMiB);
    ASSERT_TRUE(piece) << piece.error().detail;
    back += *piece;
  }
  EXPECT_TRUE(back == bytes) << "the object read back differs";
}

TEST_F(S3StoreTest, AWriterDroppedOrFailedLeavesNoObjectAndNoUpload) {
  const std::string key = "orders/c/result.mp3";
  {
    auto writer = store->open_writer(key);
    ASSERT_TRUE(writer);
    ASSERT_TRUE((*writer)->write(pattern_bytes(6 * kMiB, 3)));
    EXPECT_EQ(uploads_under_way(), 1u);
  }
  EXPECT_EQ(uploads_under_way(), 0u);
  EXPECT_EQ(store->stat(key).value(), std::nullopt);
  auto small = store->open_writer(key);
  ASSERT_TRUE(small);
  ASSERT_TRUE((*small)->write("abc"));
  ASSERT_TRUE((*small)->commit());
  EXPECT_FALSE((*small)->commit()) << "a writer commits once";
  EXPECT_EQ(store->read(key, 0, 10).value(), "abc");
}

TEST_F(S3StoreTest, AReaderPinnedToAnEtagFailsOnceTheObjectIsReplaced) {
  const std::string key = "orders/d/result.mp3";
  ASSERT_TRUE(store->put(key, std::string(1000, 'a')));
  auto reader = store->open_reader(key);
  ASSERT_TRUE(reader);
  EXPECT_EQ((*reader)->read(0, 100).value(), std::string(100, 'a'));
  ASSERT_TRUE(store->put(key, std::string(1000, 'b')));
  auto after = (*reader)->read(100, 100);
  ASSERT_FALSE(after) << "mixed bytes were served";
  EXPECT_EQ(after.error().code, StoreErrc::io_error);
  EXPECT_NE(after.error().detail.find("changed"), std::string::npos) << after.error().detail;
}

TEST_F(S3StoreTest, RemovesAPrefixOfMoreKeysThanOneListPage) {
  S3Options paged = bucket.under("it");
  paged.list_page_keys = 3;
  auto small_pages = test::open_s3(paged);
  ASSERT_TRUE(small_pages);
  for (int i = 0; i < 8; ++i) ASSERT_TRUE(store->put("orders/e/part-" + std::to_string(i) + ".mp3", "x"));
  ASSERT_TRUE(store->put("orders/e2/result.mp3", "kept"));
  auto removed = small_pages->remove_prefix("orders/e/");
  ASSERT_TRUE(removed) << removed.error().detail;
  EXPECT_EQ(*removed, 8u);
  EXPECT_EQ(store->stat("orders/e/part-0.mp3").value(), std::nullopt);
  EXPECT_EQ(store->stat("orders/e2/result.mp3").value(), std::optional<std::uint64_t>(4)) << "a sibling prefix";
  EXPECT_EQ(small_pages->remove_prefix("orders/e/").value(), 0u);
}

TEST_F(S3StoreTest, AWrongSecretKeyIsAnIoErrorNamingTheRefusal) {
  S3Options forged = base;
  forged.secret_key = "not-the-secret";
  auto wrong = test::open_s3(forged);
  ASSERT_TRUE(wrong);
  auto put = wrong->put("orders/f/result.mp3", "abc");
  ASSERT_FALSE(put);
  EXPECT_EQ(put.error().code, StoreErrc::io_error);
  EXPECT_NE(put.error().detail.find("HTTP 403"), std::string::npos) << put.error().detail;
  EXPECT_NE(put.error().detail.find("SignatureDoesNotMatch"), std::string::npos) << put.error().detail;
  EXPECT_EQ(wrong->stat("orders/f/result.mp3").error().code, StoreErrc::io_error);
  EXPECT_EQ(store->stat("orders/f/result.mp3").value(), std::nullopt) << "nothing was stored";
}

TEST_F(S3StoreTest, ADeadEndpointIsAnIoErrorAfterTheBoundedAttempts) {
  S3Options dead = base;
  dead.endpoint = "http://127.0.0.1:" + std::to_string(dead_port());
  auto unreachable = test::open_s3(dead);
  ASSERT_TRUE(unreachable);
  auto put = unreachable->put("orders/g/result.mp3", "abc");
  ASSERT_FALSE(put);
  EXPECT_EQ(put.error().code, StoreErrc::io_error);
  EXPECT_NE(put.error().detail.find("after 3 attempts"), std::string::npos) << put.error().detail;
  std::string metrics;
  unreachable->render_metrics(metrics);
  EXPECT_NE(metrics.find("mediagen_storage_requests_total{op=\"put\",outcome=\"error\"} 1\n"), std::string::npos)
      << metrics;
}

TEST_F(S3StoreTest, AServerThatStopsAnsweringIsATimeoutRetriedThenAnIoError) {
  SilentServer silent;
  S3Options stalled = base;
  stalled.endpoint = "http://127.0.0.1:" + std::to_string(silent.port());
  stalled.attempts = 2;
  stalled.stall_timeout = std::chrono::seconds(1);
  auto wedged = test::open_s3(stalled);
  ASSERT_TRUE(wedged);
  auto found = wedged->stat("orders/i/result.mp3");
  ASSERT_FALSE(found);
  EXPECT_EQ(found.error().code, StoreErrc::io_error);
  EXPECT_NE(found.error().detail.find("after 2 attempts"), std::string::npos) << found.error().detail;
  EXPECT_NE(found.error().detail.find("Timeout"), std::string::npos) << found.error().detail;
}

TEST_F(S3StoreTest, APresignedUrlServesTheObjectWithoutCredentials) {
  const std::string key = "orders/h/result.mp3";
  ASSERT_TRUE(store->put(key, "presigned bytes"));
  const auto now = std::chrono::duration_cast<std::chrono::seconds>(
                       std::chrono::system_clock::now().time_since_epoch()).count();
  const std::string url = store->presign_get(key, true, 600, now);
  auto got = s3::exchange({.method = "GET", .url = url}, {});
  ASSERT_TRUE(got) << got.error().detail;
  EXPECT_EQ(got->status, 200) << got->body;
  EXPECT_EQ(got->body, "presigned bytes");
  auto forged = s3::exchange({.method = "GET", .url = url.substr(0, url.size() - 1) + (url.back() == '0' ? "1" : "0")}, {});
  ASSERT_TRUE(forged);
  EXPECT_EQ(forged->status, 403);
}

}  // namespace
}  // namespace mediagen::storage
