// The local object store on a real file system, in a temporary folder of its own.
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/resource.h>
#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <optional>
#include <string>
#include <vector>

#include "mediagen/storage/local_store.hpp"

namespace mediagen::storage {
namespace {

namespace fs = std::filesystem;

const std::string kOrder = "orders/0f8fad5b-d9cb-469f-a165-70867728950e";

std::string slurp(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

void write_file(const fs::path& path, const std::string& bytes) {
  std::ofstream out(path, std::ios::binary);
  out << bytes;
}

// Every name below `dir`, relative, sorted.
std::vector<std::string> listing(const fs::path& dir) {
  std::vector<std::string> out;
  for (const auto& e : fs::recursive_directory_iterator(dir)) out.push_back(fs::relative(e.path(), dir).string());
  std::sort(out.begin(), out.end());
  return out;
}

std::string binary_bytes(std::size_t n) {
  std::string s(n, '\0');
  for (std::size_t i = 0; i < n; ++i) s[i] = static_cast<char>((i * 31 + 7) & 0xFF);
  return s;
}

class LocalStoreTest : public ::testing::Test {
 protected:
  void SetUp() override {
    std::string pattern = (fs::temp_directory_path() / "mg-store-XXXXXX").string();
    ASSERT_NE(::mkdtemp(pattern.data()), nullptr);
    base = pattern;
    root = base / "root";
    outside = base / "outside";
    fs::create_directories(outside);
    write_file(outside / "secret.txt", "outside the store");
    auto opened = LocalStore::open(root.string());
    ASSERT_TRUE(opened) << opened.error().detail;
    store.emplace(std::move(*opened));
  }
  void TearDown() override {
    std::error_code ec;
    fs::remove_all(base, ec);
  }

  fs::path base, root, outside;
  std::optional<LocalStore> store;
};

TEST_F(LocalStoreTest, CreatesAMissingRootAndRefusesAFileAsRoot) {
  EXPECT_TRUE(fs::is_directory(root));
  write_file(base / "plain", "x");
  auto refused = LocalStore::open((base / "plain").string());
  ASSERT_FALSE(refused);
  EXPECT_EQ(refused.error().code, StoreErrc::io_error);
}

TEST_F(LocalStoreTest, PutsAndReadsBackBinaryBytesAndTheirSize) {
  const std::string bytes = binary_bytes(100'000);
  const std::string key = kOrder + "/chunks/7c9e6679-7425-40de-944b-e07fc1f90ae7.mp3";
  ASSERT_TRUE(store->put(key, bytes));
  EXPECT_EQ(slurp(root / key), bytes);

  auto size = store->stat(key);
  ASSERT_TRUE(size);
  ASSERT_TRUE(*size);
  EXPECT_EQ(**size, bytes.size());

  auto all = store->read(key, 0, bytes.size());
  ASSERT_TRUE(all);
  EXPECT_EQ(*all, bytes);
}

TEST_F(LocalStoreTest, ReadsARangeAndStopsAtTheEnd) {
  const std::string bytes = binary_bytes(1000);
  const std::string key = kOrder + "/result.mp3";
  ASSERT_TRUE(store->put(key, bytes));
  EXPECT_EQ(*store->read(key, 10, 20), bytes.substr(10, 20));
  EXPECT_EQ(*store->read(key, 990, 100), bytes.substr(990)) << "fewer bytes only at the end";
  EXPECT_EQ(*store->read(key, 1000, 10), "");
  EXPECT_EQ(*store->read(key, 5000, 10), "");
  EXPECT_EQ(*store->read(key, 0, ~std::uint64_t{0}), bytes) << "a huge length is bounded by the file";
}

TEST_F(LocalStoreTest, OpensAnObjectAndReadsItInPiecesAsItWasWhenOpened) {
  const std::string bytes = binary_bytes(10000);
  const std::string key = kOrder + "/result.mp3";
  ASSERT_TRUE(store->put(key, bytes));
  auto reader = store->open_reader(key);
  ASSERT_TRUE(reader) << reader.error().detail;
  EXPECT_EQ((*reader)->size(), 10000u);
  EXPECT_EQ(*(*reader)->read(0, 4096), bytes.substr(0, 4096));
  // Replaced and then removed under the key: the open object still reads whole.
  ASSERT_TRUE(store->put(key, "short"));
  ASSERT_TRUE(*store->remove(key));
  EXPECT_EQ(*(*reader)->read(4096, 4096), bytes.substr(4096, 4096));
  EXPECT_EQ(*(*reader)->read(8192, 4096), bytes.substr(8192)) << "fewer bytes only at the end";
  EXPECT_EQ(*(*reader)->read(10000, 10), "");
}

TEST_F(LocalStoreTest, OpensNothingForAMissingObjectASymlinkOrAnInvalidKey) {
  EXPECT_EQ(store->open_reader(kOrder + "/result.mp3").error().code, StoreErrc::not_found);
  fs::create_directories(root / kOrder);
  fs::create_symlink(outside / "secret.txt", root / kOrder / "result.mp3");
  EXPECT_EQ(store->open_reader(kOrder + "/result.mp3").error().code, StoreErrc::not_found);
  EXPECT_EQ(store->open_reader("../outside/secret.txt").error().code, StoreErrc::invalid_key);
}

TEST_F(LocalStoreTest, StoresAnEmptyObject) {
  ASSERT_TRUE(store->put("empty.srt", ""));
  EXPECT_EQ(**store->stat("empty.srt"), 0u);
  EXPECT_EQ(*store->read("empty.srt", 0, 10), "");
}

TEST_F(LocalStoreTest, ReplacesAnObjectWhole) {
  const std::string key = kOrder + "/result.mp3";
  ASSERT_TRUE(store->put(key, std::string(5000, 'a')));
  ASSERT_TRUE(store->put(key, "short"));
  EXPECT_EQ(slurp(root / key), "short");
  EXPECT_EQ(**store->stat(key), 5u);
}

TEST_F(LocalStoreTest, LeavesNoTemporaryFileBehind) {
  for (int i = 0; i < 5; ++i) ASSERT_TRUE(store->put(kOrder + "/result.mp3", binary_bytes(4096 + i)));
  ASSERT_TRUE(store->put(kOrder + "/result.srt", "1\n00:00:00,000 --> 00:00:01,000\nhi\n"));
  EXPECT_EQ(listing(root), (std::vector<std::string>{"orders", kOrder, kOrder + "/result.mp3", kOrder + "/result.srt"}));
}

TEST_F(LocalStoreTest, AnswersAbsentForAMissingObject) {
  auto size = store->stat(kOrder + "/result.mp3");
  ASSERT_TRUE(size);
  EXPECT_FALSE(*size);
  auto bytes = store->read(kOrder + "/result.mp3", 0, 10);
  ASSERT_FALSE(bytes);
  EXPECT_EQ(bytes.error().code, StoreErrc::not_found);
}

TEST_F(LocalStoreTest, TreatsAFolderAsNoObject) {
  ASSERT_TRUE(store->put(kOrder + "/result.mp3", "x"));
  auto size = store->stat(kOrder);
  ASSERT_TRUE(size);
  EXPECT_FALSE(*size);
  EXPECT_EQ(store->read(kOrder, 0, 10).error().code, StoreErrc::not_found);
  EXPECT_FALSE(*store->remove(kOrder));
  EXPECT_TRUE(fs::exists(root / kOrder / "result.mp3"));
}

TEST_F(LocalStoreTest, RefusesInvalidKeysOnEveryCall) {
  for (const std::string key : {"../outside/secret.txt", "/etc/passwd", "orders/../../outside/secret.txt",
                                "%2e%2e/outside/secret.txt", "..\\outside\\secret.txt", ""}) {
    EXPECT_EQ(store->put(key, "x").error().code, StoreErrc::invalid_key) << key;
    EXPECT_EQ(store->stat(key).error().code, StoreErrc::invalid_key) << key;
    EXPECT_EQ(store->read(key, 0, 10).error().code, StoreErrc::invalid_key) << key;
    EXPECT_EQ(store->remove(key).error().code, StoreErrc::invalid_key) << key;
  }
  EXPECT_EQ(store->put(std::string("a\0b", 3), "x").error().code, StoreErrc::invalid_key);
  for (const std::string prefix : {"../", "/", "", "orders", "../outside/", "orders/../../outside/"}) {
    EXPECT_EQ(store->remove_prefix(prefix).error().code, StoreErrc::invalid_key) << prefix;
  }
  EXPECT_EQ(slurp(outside / "secret.txt"), "outside the store");
}

TEST_F(LocalStoreTest, RemovesOneObject) {
  ASSERT_TRUE(store->put(kOrder + "/result.mp3", "x"));
  ASSERT_TRUE(store->put(kOrder + "/result.srt", "y"));
  EXPECT_TRUE(*store->remove(kOrder + "/result.mp3"));
  EXPECT_FALSE(*store->remove(kOrder + "/result.mp3")) << "already gone";
  EXPECT_FALSE(*store->remove("orders/nothing/here.mp3"));
  EXPECT_FALSE(*store->stat(kOrder + "/result.mp3"));
  EXPECT_TRUE(*store->stat(kOrder + "/result.srt"));
}

TEST_F(LocalStoreTest, RemovesAPrefixWithEverythingUnderIt) {
  const std::string other = "orders/7c9e6679-7425-40de-944b-e07fc1f90ae7";
  ASSERT_TRUE(store->put(kOrder + "/result.mp3", "a"));
  ASSERT_TRUE(store->put(kOrder + "/result.srt", "b"));
  ASSERT_TRUE(store->put(kOrder + "/chunks/1.mp3", "c"));
  ASSERT_TRUE(store->put(kOrder + "/chunks/2.mp3", "d"));
  ASSERT_TRUE(store->put(other + "/result.mp3", "e"));
  write_file(root / kOrder / ".tmp~result.mp3~0011223344556677", "a crashed write");

  auto removed = store->remove_prefix(kOrder + "/");
  ASSERT_TRUE(removed) << removed.error().detail;
  EXPECT_EQ(*removed, 5u);
  EXPECT_FALSE(fs::exists(root / kOrder));
  EXPECT_EQ(**store->stat(other + "/result.mp3"), 1u) << "a sibling prefix is untouched";
  EXPECT_EQ(*store->remove_prefix(kOrder + "/"), 0u) << "again: nothing there";
  EXPECT_EQ(*store->remove_prefix("never/written/"), 0u);
}

// ---- symlinks planted inside the store are never followed ----

TEST_F(LocalStoreTest, DoesNotFollowASymlinkedObject) {
  fs::create_directories(root / kOrder);
  fs::create_symlink(outside / "secret.txt", root / kOrder / "result.mp3");
  auto size = store->stat(kOrder + "/result.mp3");
  ASSERT_TRUE(size);
  EXPECT_FALSE(*size);
  EXPECT_EQ(store->read(kOrder + "/result.mp3", 0, 100).error().code, StoreErrc::not_found);
}

TEST_F(LocalStoreTest, DoesNotFollowASymlinkedFolder) {
  fs::create_directories(root / "orders");
  fs::create_directory_symlink(outside, root / kOrder);
  EXPECT_FALSE(*store->stat(kOrder + "/secret.txt"));
  EXPECT_EQ(store->read(kOrder + "/secret.txt", 0, 100).error().code, StoreErrc::not_found);
  fs::create_directory_symlink(outside, root / "top");
  EXPECT_FALSE(*store->stat("top/secret.txt"));
}

TEST_F(LocalStoreTest, DoesNotWriteThroughASymlinkedFolder) {
  fs::create_directories(root / "orders");
  fs::create_directory_symlink(outside, root / kOrder);
  auto put = store->put(kOrder + "/result.mp3", "planted");
  ASSERT_FALSE(put);
  EXPECT_EQ(put.error().code, StoreErrc::io_error);
  EXPECT_FALSE(fs::exists(outside / "result.mp3"));
}

TEST_F(LocalStoreTest, ReplacesASymlinkedObjectInsteadOfWritingThroughIt) {
  fs::create_directories(root / kOrder);
  fs::create_symlink(outside / "secret.txt", root / kOrder / "result.mp3");
  ASSERT_TRUE(store->put(kOrder + "/result.mp3", "mine"));
  EXPECT_FALSE(fs::is_symlink(root / kOrder / "result.mp3"));
  EXPECT_EQ(slurp(root / kOrder / "result.mp3"), "mine");
  EXPECT_EQ(slurp(outside / "secret.txt"), "outside the store");
}

TEST_F(LocalStoreTest, RemovesPlantedSymlinksAsNamesNeverTheirTargets) {
  ASSERT_TRUE(store->put(kOrder + "/result.mp3", "a"));
  fs::create_directory_symlink(outside, root / kOrder / "chunks");
  fs::create_symlink(outside / "secret.txt", root / kOrder / "result.srt");
  auto removed = store->remove_prefix(kOrder + "/");
  ASSERT_TRUE(removed) << removed.error().detail;
  EXPECT_EQ(*removed, 1u);
  EXPECT_FALSE(fs::exists(root / kOrder));
  EXPECT_EQ(slurp(outside / "secret.txt"), "outside the store");

  // A prefix that is itself a symlink: the link goes, the folder it points at stays.
  fs::create_directories(root / "orders");
  fs::create_directory_symlink(outside, root / kOrder);
  EXPECT_EQ(*store->remove_prefix(kOrder + "/"), 0u);
  EXPECT_FALSE(fs::is_symlink(root / kOrder));
  EXPECT_EQ(slurp(outside / "secret.txt"), "outside the store");

  // remove() of a symlinked object removes the link only.
  fs::create_directories(root / kOrder);
  fs::create_symlink(outside / "secret.txt", root / kOrder / "x.mp3");
  ASSERT_TRUE(store->remove(kOrder + "/x.mp3"));
  EXPECT_EQ(slurp(outside / "secret.txt"), "outside the store");
}

TEST_F(LocalStoreTest, DoesNotBlockOnAPlantedFifo) {
  fs::create_directories(root / kOrder);
  ASSERT_EQ(::mkfifo((root / kOrder / "result.mp3").c_str(), 0644), 0);
  auto size = store->stat(kOrder + "/result.mp3");
  ASSERT_TRUE(size);
  EXPECT_FALSE(*size);
}

// ---- failures are values, and never leave a partial object ----

TEST_F(LocalStoreTest, ReportsAFileInThePlaceOfAFolder) {
  ASSERT_TRUE(store->put("orders", "a file"));
  auto put = store->put(kOrder + "/result.mp3", "x");
  ASSERT_FALSE(put);
  EXPECT_EQ(put.error().code, StoreErrc::io_error);
  EXPECT_FALSE(*store->stat(kOrder + "/result.mp3"));
}

TEST_F(LocalStoreTest, ReportsAFolderInThePlaceOfTheObjectAndCleansUp) {
  fs::create_directories(root / kOrder / "result.mp3");
  auto put = store->put(kOrder + "/result.mp3", "x");
  ASSERT_FALSE(put);
  EXPECT_EQ(put.error().code, StoreErrc::io_error);
  EXPECT_EQ(listing(root / kOrder), (std::vector<std::string>{"result.mp3"})) << "no temporary file left";
}

// A full disk, made with the file-size limit: write() fails with EFBIG part way through.
TEST_F(LocalStoreTest, ReportsAFailedWriteAndLeavesNothingUnderTheName) {
  const std::string key = kOrder + "/result.mp3";
  ASSERT_TRUE(store->put(key, "the old, whole object"));

  struct sigaction ignore {};
  ignore.sa_handler = SIG_IGN;
  struct sigaction previous {};
  ASSERT_EQ(::sigaction(SIGXFSZ, &ignore, &previous), 0);
  rlimit saved{};
  ASSERT_EQ(::getrlimit(RLIMIT_FSIZE, &saved), 0);
  rlimit small = saved;
  small.rlim_cur = 4096;
  ASSERT_EQ(::setrlimit(RLIMIT_FSIZE, &small), 0);
  auto failed = store->put(key, binary_bytes(64 * 1024));
  auto fresh = store->put(kOrder + "/result.srt", binary_bytes(64 * 1024));
  ::setrlimit(RLIMIT_FSIZE, &saved);
  ::sigaction(SIGXFSZ, &previous, nullptr);

  ASSERT_FALSE(failed);
  EXPECT_EQ(failed.error().code, StoreErrc::io_error);
  EXPECT_EQ(failed.error().sys_errno, EFBIG);
  EXPECT_EQ(slurp(root / key), "the old, whole object") << "the old object survives whole";
  ASSERT_FALSE(fresh);
  EXPECT_FALSE(*store->stat(kOrder + "/result.srt")) << "nothing half-written under a new name";
  EXPECT_EQ(listing(root / kOrder), (std::vector<std::string>{"result.mp3"})) << "no temporary file left";
}

}  // namespace
}  // namespace mediagen::storage
