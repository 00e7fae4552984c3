#pragma once
// Where result files live. Orders keep keys (relative paths such as
// "orders/<uuid>/result.mp3"), never URLs; the store turns a key into bytes.
//
// Every call is blocking file or network I/O: run it on the blocking pool or a worker thread,
// never on an I/O thread. A refused key, a missing object and an I/O failure come back as a
// StoreError value; nothing is thrown for them.
#include <cstdint>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>

#include <boost/system/result.hpp>

namespace mediagen::storage {

// Longest key in bytes, most segments, longest segment: bounded so that a key, its temporary
// sibling and the store root always fit the file system's limits.
inline constexpr std::size_t kMaxKeyBytes = 512;
inline constexpr std::size_t kMaxKeySegments = 16;
inline constexpr std::size_t kMaxSegmentBytes = 200;

// A key is '/'-separated segments of [A-Za-z0-9._-]: no leading or trailing '/', no empty,
// "." or ".." segment, nothing percent-encoded, no NUL or backslash, within the bounds above.
bool is_valid_key(std::string_view key) noexcept;
// A subtree of keys: a valid key followed by '/' ("orders/<uuid>/").
bool is_valid_prefix(std::string_view prefix) noexcept;
// The last segment of a valid key ("result.mp3").
std::string_view key_basename(std::string_view key) noexcept;

enum class StoreErrc {
  invalid_key,  // the key or prefix fails is_valid_key / is_valid_prefix
  not_found,    // no object under the key (or something that is not one: a directory, a symlink)
  io_error,     // the file system failed (disk full, EIO, permissions, ...)
};

std::string_view to_string(StoreErrc code);

struct StoreError {
  StoreErrc code = StoreErrc::io_error;
  int sys_errno = 0;   // errno of the failing call, 0 when none
  std::string detail;  // for logs: the operation and the key, never shown to clients

  static StoreError invalid_key(std::string_view key);
  static StoreError not_found(std::string_view key);
  static StoreError io(std::string_view operation, std::string_view key, int err);
};

template <class T>
using StoreResult = boost::system::result<T, StoreError>;

// What StoreResult<T>::value() throws when it holds an error.
class StoreFailure : public std::runtime_error {
 public:
  explicit StoreFailure(StoreError error);
  const StoreError& error() const noexcept { return error_; }

 private:
  StoreError error_;
};

[[noreturn]] void throw_exception_from_error(const StoreError& error, const boost::source_location& loc);

// One object opened for reading in pieces (a download). It reads the object as it was when
// opened, even once its key is replaced. Blocking like the store; one thread at a time.
class ObjectReader {
 public:
  virtual ~ObjectReader() = default;
  // The object's size when it was opened.
  virtual std::uint64_t size() const = 0;
  // Up to `length` bytes from `offset`; fewer only when the object ends first.
  virtual StoreResult<std::string> read(std::uint64_t offset, std::uint64_t length) = 0;
};

// One object written in pieces: bytes appended with write(), made visible under the key by
// commit() as a whole. Until the commit nothing new exists under the key (a reader sees the old
// object or none); a writer destroyed without a commit, or whose write or commit failed, leaves
// nothing behind. The local store writes a temporary sibling and renames it; an S3 store would
// run a multipart upload and complete it on commit.
class ObjectWriter {
 public:
  virtual ~ObjectWriter() = default;
  // Appends bytes. After an error the writer is spent: later calls fail too.
  virtual StoreResult<void> write(std::string_view bytes) = 0;
  // Publishes what was written under the key, durably. Once.
  virtual StoreResult<void> commit() = 0;
  // Bytes written so far.
  virtual std::uint64_t written() const = 0;
};

class ObjectStore {
 public:
  virtual ~ObjectStore() = default;

  // A writer for `key` (see ObjectWriter); creates parent folders.
  virtual StoreResult<std::unique_ptr<ObjectWriter>> open_writer(std::string_view key) = 0;

  // Stores `bytes` under `key` atomically: readers see the old object or the whole new one,
  // never a part; after a failure nothing new exists under the key. Creates parent folders.
  virtual StoreResult<void> put(std::string_view key, std::string_view bytes) = 0;

  // The object's size in bytes; nullopt when there is no object under the key.
  virtual StoreResult<std::optional<std::uint64_t>> stat(std::string_view key) = 0;

  // Up to `length` bytes from `offset`; fewer only when the object ends first.
  // not_found when there is no object under the key.
  virtual StoreResult<std::string> read(std::string_view key, std::uint64_t offset, std::uint64_t length) = 0;

  // Opens the object for reading in pieces; not_found when there is no object under the key.
  // The default reads by key on every call (a replacement of the same size between two pieces
  // goes unseen): the local store keeps the open file instead, a remote store can pin the
  // version it saw (S3: ranged GETs with If-Match on the ETag).
  virtual StoreResult<std::unique_ptr<ObjectReader>> open_reader(std::string_view key);

  // Removes one object; false when there was none.
  virtual StoreResult<bool> remove(std::string_view key) = 0;

  // Removes every object under the prefix ("orders/<uuid>/") and the prefix itself; the count
  // of files removed (0 when the prefix did not exist). For the retention janitor.
  virtual StoreResult<std::uint64_t> remove_prefix(std::string_view prefix) = 0;
};

}  // namespace mediagen::storage
