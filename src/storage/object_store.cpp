// Key rules and the error value shared by every object store.
#include "mediagen/storage/object_store.hpp"

#include <algorithm>
#include <system_error>

namespace mediagen::storage {
namespace {

bool is_key_char(char c) noexcept {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '.' || c == '_' ||
         c == '-';
}

}  // namespace

// One pass over the bytes: anything outside the alphabet (NUL, '\\', '%', '~', spaces, non-ASCII)
// refuses the key, so encoded or decoded traversal forms never reach the file system.
bool is_valid_key(std::string_view key) noexcept {
  if (key.empty() || key.size() > kMaxKeyBytes) return false;
  std::size_t segments = 0;
  std::size_t start = 0;
  for (std::size_t i = 0; i <= key.size(); ++i) {
    if (i < key.size() && key[i] != '/') {
      if (!is_key_char(key[i])) return false;
      continue;
    }
    const std::string_view segment = key.substr(start, i - start);
    if (segment.empty() || segment.size() > kMaxSegmentBytes || segment == "." || segment == "..") return false;
    if (++segments > kMaxKeySegments) return false;
    start = i + 1;
  }
  return true;
}

bool is_valid_prefix(std::string_view prefix) noexcept {
  return prefix.size() >= 2 && prefix.back() == '/' && is_valid_key(prefix.substr(0, prefix.size() - 1));
}

std::string_view key_basename(std::string_view key) noexcept {
  const std::size_t slash = key.rfind('/');
  return slash == std::string_view::npos ? key : key.substr(slash + 1);
}

std::string_view to_string(StoreErrc code) {
  switch (code) {
    case StoreErrc::invalid_key: return "invalid_key";
    case StoreErrc::not_found: return "not_found";
    case StoreErrc::io_error: return "io_error";
  }
  return "io_error";
}

StoreError StoreError::invalid_key(std::string_view key) {
  // The key came from outside: keep only a bounded, printable prefix of it for the logs.
  std::string shown;
  for (char c : key.substr(0, 80)) shown += (c >= 0x20 && c < 0x7f) ? c : '?';
  return {StoreErrc::invalid_key, 0, "invalid key: " + shown};
}

StoreError StoreError::not_found(std::string_view key) {
  return {StoreErrc::not_found, 0, "no object: " + std::string(key)};
}

StoreError StoreError::io(std::string_view operation, std::string_view key, int err) {
  return {StoreErrc::io_error, err, std::string(operation) + " " + std::string(key) + ": " + std::generic_category().message(err)};
}

StoreFailure::StoreFailure(StoreError error)
    : std::runtime_error("storage " + std::string(to_string(error.code)) + ": " + error.detail),
      error_(std::move(error)) {}

void throw_exception_from_error(const StoreError& error, const boost::source_location&) { throw StoreFailure(error); }

namespace {

// Reads by key: what a store without a reader of its own offers.
class KeyReader final : public ObjectReader {
 public:
  KeyReader(ObjectStore& store, std::string key, std::uint64_t size)
      : store_(store), key_(std::move(key)), size_(size) {}
  std::uint64_t size() const override { return size_; }
  StoreResult<std::string> read(std::uint64_t offset, std::uint64_t length) override {
    if (offset >= size_) return std::string();
    return store_.read(key_, offset, std::min(length, size_ - offset));
  }

 private:
  ObjectStore& store_;
  std::string key_;
  std::uint64_t size_;
};

}  // namespace

StoreResult<std::unique_ptr<ObjectReader>> ObjectStore::open_reader(std::string_view key) {
  auto size = stat(key);
  if (!size) return size.error();
  if (!*size) return StoreError::not_found(key);
  return std::unique_ptr<ObjectReader>(std::make_unique<KeyReader>(*this, std::string(key), **size));
}

}  // namespace mediagen::storage
