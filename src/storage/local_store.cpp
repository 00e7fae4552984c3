// The local file-system store. Every path below the root is walked one component at a time
// with openat(O_NOFOLLOW), so no symlink inside the store is ever followed, whatever planted it.
#include "mediagen/storage/local_store.hpp"

#include <dirent.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <filesystem>
#include <memory>
#include <span>
#include <utility>
#include <vector>

#include "mediagen/core/crypto.hpp"

namespace mediagen::storage {
namespace {

// Subtrees deeper than keys can be were not made by the store: refuse rather than recurse on.
constexpr int kMaxTreeDepth = static_cast<int>(kMaxKeySegments) + 4;

class Fd {
 public:
  Fd() = default;
  explicit Fd(int fd) : fd_(fd) {}
  Fd(Fd&& other) noexcept : fd_(std::exchange(other.fd_, -1)) {}
  Fd& operator=(Fd&& other) noexcept {
    if (this != &other) {
      reset();
      fd_ = std::exchange(other.fd_, -1);
    }
    return *this;
  }
  Fd(const Fd&) = delete;
  Fd& operator=(const Fd&) = delete;
  ~Fd() { reset(); }

  int get() const { return fd_; }
  // close() reports write-back errors on some file systems, so a writer must look at it.
  int close() {
    const int rc = ::close(std::exchange(fd_, -1));
    return rc == 0 ? 0 : errno;
  }

 private:
  void reset() {
    if (fd_ >= 0) ::close(fd_);
    fd_ = -1;
  }
  int fd_ = -1;
};

constexpr int kDirFlags = O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC;

int retry_eintr(auto call) {
  int rc;
  do {
    rc = call();
  } while (rc < 0 && errno == EINTR);
  return rc;
}

// What a missing or unusable component means to a reader: there is no object there.
bool means_absent(int err) { return err == ENOENT || err == ELOOP || err == ENOTDIR; }

// The folder that holds the key's last segment. With `create`, missing folders are made (and
// their parent fsynced so the new entry survives a crash); a symlink or a file in the way is
// refused either way.
StoreResult<Fd> open_parent(const std::string& root, std::string_view key, bool create) {
  Fd dir(retry_eintr([&] { return ::open(root.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC); }));
  if (dir.get() < 0) return StoreError::io("open root", root, errno);
  std::size_t start = 0;
  for (std::size_t slash = key.find('/'); slash != std::string_view::npos; slash = key.find('/', start)) {
    const std::string segment(key.substr(start, slash - start));
    start = slash + 1;
    Fd next(retry_eintr([&] { return ::openat(dir.get(), segment.c_str(), kDirFlags); }));
    if (next.get() < 0 && errno == ENOENT && create) {
      if (::mkdirat(dir.get(), segment.c_str(), 0755) != 0 && errno != EEXIST) {
        return StoreError::io("mkdir", key, errno);
      }
      if (::fsync(dir.get()) != 0) return StoreError::io("fsync folder", key, errno);
      next = Fd(retry_eintr([&] { return ::openat(dir.get(), segment.c_str(), kDirFlags); }));
    }
    if (next.get() < 0) {
      const int err = errno;
      if (!create && means_absent(err)) return StoreError::not_found(key);
      return StoreError::io("open folder", key, err);
    }
    dir = std::move(next);
  }
  return dir;
}

// The object's file, opened for reading, when it is a regular file (not a symlink, folder,
// FIFO or device); O_NONBLOCK keeps a planted FIFO from blocking the open.
StoreResult<std::pair<Fd, std::uint64_t>> open_object(const std::string& root, std::string_view key) {
  if (!is_valid_key(key)) return StoreError::invalid_key(key);
  auto parent = open_parent(root, key, false);
  if (!parent) return parent.error();
  const std::string base(key_basename(key));
  Fd file(retry_eintr(
      [&] { return ::openat(parent->get(), base.c_str(), O_RDONLY | O_NOFOLLOW | O_CLOEXEC | O_NONBLOCK); }));
  if (file.get() < 0) {
    const int err = errno;
    if (means_absent(err)) return StoreError::not_found(key);
    return StoreError::io("open", key, err);
  }
  struct stat st {};
  if (::fstat(file.get(), &st) != 0) return StoreError::io("fstat", key, errno);
  if (!S_ISREG(st.st_mode)) return StoreError::not_found(key);
  return std::pair<Fd, std::uint64_t>{std::move(file), static_cast<std::uint64_t>(st.st_size)};
}

// Up to `length` bytes from `offset` of an object of `size` bytes; fewer when it ends first.
StoreResult<std::string> read_at(int fd, std::uint64_t size, std::string_view key, std::uint64_t offset,
                                 std::uint64_t length) {
  if (offset >= size) return std::string();
  const std::uint64_t wanted = std::min(length, size - offset);
  std::string out(static_cast<std::size_t>(wanted), '\0');
  std::size_t got = 0;
  while (got < out.size()) {
    const ssize_t n = ::pread(fd, out.data() + got, out.size() - got, static_cast<off_t>(offset + got));
    if (n < 0) {
      if (errno == EINTR) continue;
      return StoreError::io("read", key, errno);
    }
    if (n == 0) break;  // truncated since the fstat: hand back what is there
    got += static_cast<std::size_t>(n);
  }
  out.resize(got);
  return out;
}

// Keeps the file open: a put that renames a new object over the key leaves this one readable.
class LocalReader final : public ObjectReader {
 public:
  LocalReader(Fd file, std::uint64_t size, std::string key)
      : file_(std::move(file)), size_(size), key_(std::move(key)) {}
  std::uint64_t size() const override { return size_; }
  StoreResult<std::string> read(std::uint64_t offset, std::uint64_t length) override {
    return read_at(file_.get(), size_, key_, offset, length);
  }

 private:
  Fd file_;
  std::uint64_t size_;
  std::string key_;
};

int write_all(int fd, std::string_view bytes) {
  while (!bytes.empty()) {
    const ssize_t n = ::write(fd, bytes.data(), bytes.size());
    if (n < 0) {
      if (errno == EINTR) continue;
      return errno;
    }
    bytes.remove_prefix(static_cast<std::size_t>(n));
  }
  return 0;
}

// The temporary sibling of one key, renamed over the key's name on commit; unlinked when the
// writer ends any other way, so a failed or abandoned write leaves no file behind.
class LocalWriter final : public ObjectWriter {
 public:
  LocalWriter(std::string key, Fd dir, Fd file, std::string temp)
      : key_(std::move(key)), base_(key_basename(key_)), dir_(std::move(dir)), file_(std::move(file)),
        temp_(std::move(temp)) {}
  LocalWriter(const LocalWriter&) = delete;
  LocalWriter& operator=(const LocalWriter&) = delete;
  ~LocalWriter() override {
    if (!committed_) abandon();
  }

  StoreResult<void> write(std::string_view bytes) override {
    if (file_.get() < 0) return StoreError::io("write", key_, EBADF);
    if (int err = write_all(file_.get(), bytes)) return fail("write", err);
    written_ += bytes.size();
    return {};
  }

  StoreResult<void> commit() override {
    if (file_.get() < 0) return StoreError::io("commit", key_, EBADF);
    if (::fsync(file_.get()) != 0) return fail("fsync", errno);
    if (int err = file_.close()) return fail("close", err);
    // rename replaces the final name as a whole; a symlink planted there is replaced, not followed.
    if (::renameat(dir_.get(), temp_.c_str(), dir_.get(), base_.c_str()) != 0) return fail("rename", errno);
    committed_ = true;
    // The rename itself must reach the disk before the caller records the key as written.
    if (::fsync(dir_.get()) != 0) return StoreError::io("fsync folder", key_, errno);
    return {};
  }

  std::uint64_t written() const override { return written_; }

 private:
  StoreError fail(std::string_view operation, int err) {
    abandon();
    return StoreError::io(operation, key_, err);
  }
  void abandon() {
    if (file_.get() >= 0) file_.close();
    if (!temp_.empty()) ::unlinkat(dir_.get(), temp_.c_str(), 0);
    temp_.clear();
  }

  std::string key_;
  std::string base_;
  Fd dir_;
  Fd file_;
  std::string temp_;
  std::uint64_t written_ = 0;
  bool committed_ = false;
};

// Removes what is inside `dir` (owned), depth first, never following a symlink: a link is
// removed as a name. Counts removed regular files. Entries that vanish meanwhile are skipped.
StoreResult<std::uint64_t> clear_tree(Fd dir, std::string_view prefix, int depth) {
  if (depth > kMaxTreeDepth) return StoreError::io("remove tree", prefix, ELOOP);
  const int listing_fd = ::dup(dir.get());
  if (listing_fd < 0) return StoreError::io("dup", prefix, errno);
  DIR* listing = ::fdopendir(listing_fd);
  if (!listing) {
    const int err = errno;
    ::close(listing_fd);
    return StoreError::io("opendir", prefix, err);
  }
  // Names first, removal after: unlinking while readdir walks the same folder may skip entries.
  std::vector<std::string> names;
  errno = 0;
  while (const dirent* entry = ::readdir(listing)) {
    const std::string_view name = entry->d_name;
    if (name != "." && name != "..") names.emplace_back(name);
  }
  const int read_error = errno;
  ::closedir(listing);
  if (read_error != 0) return StoreError::io("readdir", prefix, read_error);

  std::uint64_t removed = 0;
  for (const auto& name : names) {
    struct stat st {};
    if (::fstatat(dir.get(), name.c_str(), &st, AT_SYMLINK_NOFOLLOW) != 0) {
      if (errno == ENOENT) continue;
      return StoreError::io("stat", prefix, errno);
    }
    if (S_ISDIR(st.st_mode)) {
      Fd child(retry_eintr([&] { return ::openat(dir.get(), name.c_str(), kDirFlags); }));
      if (child.get() < 0) {
        if (errno == ENOENT) continue;
        // Swapped for a symlink since the stat: fall through and remove the name.
        if (errno != ELOOP && errno != ENOTDIR) return StoreError::io("open folder", prefix, errno);
      } else {
        auto inner = clear_tree(std::move(child), prefix, depth + 1);
        if (!inner) return inner.error();
        removed += *inner;
        if (::unlinkat(dir.get(), name.c_str(), AT_REMOVEDIR) != 0 && errno != ENOENT) {
          return StoreError::io("rmdir", prefix, errno);
        }
        continue;
      }
    }
    if (::unlinkat(dir.get(), name.c_str(), 0) != 0) {
      if (errno == ENOENT) continue;
      return StoreError::io("unlink", prefix, errno);
    }
    if (S_ISREG(st.st_mode)) ++removed;
  }
  return removed;
}

}  // namespace

StoreResult<LocalStore> LocalStore::open(std::string root) {
  std::error_code ec;
  std::filesystem::create_directories(root, ec);
  if (ec) return StoreError::io("create root", root, ec.value());
  if (!std::filesystem::is_directory(root, ec)) return StoreError::io("open root", root, ec ? ec.value() : ENOTDIR);
  return LocalStore(std::move(root));
}

StoreResult<std::unique_ptr<ObjectWriter>> LocalStore::open_writer(std::string_view key) {
  if (!is_valid_key(key)) return StoreError::invalid_key(key);
  auto parent = open_parent(root_, key, true);
  if (!parent) return parent.error();
  const std::string base(key_basename(key));
  // '~' is outside the key alphabet: the temporary name can never be a key.
  const std::string random = crypto::random_bytes(8);
  std::string temp = ".tmp~" + base + "~" +
                     crypto::to_hex(std::span(reinterpret_cast<const std::uint8_t*>(random.data()), random.size()));
  Fd file(retry_eintr([&] {
    return ::openat(parent->get(), temp.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0644);
  }));
  if (file.get() < 0) return StoreError::io("create", key, errno);
  return std::unique_ptr<ObjectWriter>(
      std::make_unique<LocalWriter>(std::string(key), std::move(*parent), std::move(file), std::move(temp)));
}

StoreResult<void> LocalStore::put(std::string_view key, std::string_view bytes) {
  auto writer = open_writer(key);
  if (!writer) return writer.error();
  if (auto written = (*writer)->write(bytes); !written) return written.error();
  return (*writer)->commit();
}

StoreResult<std::optional<std::uint64_t>> LocalStore::stat(std::string_view key) {
  auto object = open_object(root_, key);
  if (!object) {
    if (object.error().code == StoreErrc::not_found) return std::optional<std::uint64_t>{};
    return object.error();
  }
  return std::optional<std::uint64_t>{object->second};
}

StoreResult<std::string> LocalStore::read(std::string_view key, std::uint64_t offset, std::uint64_t length) {
  auto object = open_object(root_, key);
  if (!object) return object.error();
  return read_at(object->first.get(), object->second, key, offset, length);
}

StoreResult<std::unique_ptr<ObjectReader>> LocalStore::open_reader(std::string_view key) {
  auto object = open_object(root_, key);
  if (!object) return object.error();
  auto& [file, size] = *object;
  return std::unique_ptr<ObjectReader>(std::make_unique<LocalReader>(std::move(file), size, std::string(key)));
}

StoreResult<bool> LocalStore::remove(std::string_view key) {
  if (!is_valid_key(key)) return StoreError::invalid_key(key);
  auto parent = open_parent(root_, key, false);
  if (!parent) {
    if (parent.error().code == StoreErrc::not_found) return false;
    return parent.error();
  }
  const std::string base(key_basename(key));
  if (::unlinkat(parent->get(), base.c_str(), 0) != 0) {
    // A folder under an object's name is not an object: nothing to remove.
    if (errno == ENOENT || errno == EISDIR || errno == EPERM) return false;
    return StoreError::io("unlink", key, errno);
  }
  return true;
}

StoreResult<std::uint64_t> LocalStore::remove_prefix(std::string_view prefix) {
  if (!is_valid_prefix(prefix)) return StoreError::invalid_key(prefix);
  const std::string_view key = prefix.substr(0, prefix.size() - 1);
  auto parent = open_parent(root_, key, false);
  if (!parent) {
    if (parent.error().code == StoreErrc::not_found) return std::uint64_t{0};
    return parent.error();
  }
  const int dir = parent->get();
  const std::string base(key_basename(key));
  Fd tree(retry_eintr([&] { return ::openat(dir, base.c_str(), kDirFlags); }));
  if (tree.get() < 0) {
    const int err = errno;
    if (err == ENOENT) return std::uint64_t{0};
    if (err == ELOOP || err == ENOTDIR) {
      // A symlink in the prefix's place goes as a name; its target is never touched. A file
      // there is not a subtree of objects: left alone.
      struct stat st {};
      if (::fstatat(dir, base.c_str(), &st, AT_SYMLINK_NOFOLLOW) == 0 && S_ISLNK(st.st_mode)) {
        ::unlinkat(dir, base.c_str(), 0);
      }
      return std::uint64_t{0};
    }
    return StoreError::io("open folder", prefix, err);
  }
  auto removed = clear_tree(std::move(tree), prefix, 0);
  if (!removed) return removed.error();
  if (::unlinkat(dir, base.c_str(), AT_REMOVEDIR) != 0 && errno != ENOENT) {
    return StoreError::io("rmdir", prefix, errno);
  }
  return *removed;
}

}  // namespace mediagen::storage
