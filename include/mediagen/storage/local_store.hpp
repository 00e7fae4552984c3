#pragma once
// The default object store: a folder on the local file system.
//
// Keys map to files below the root. Every path component below the root is opened with
// O_NOFOLLOW, one at a time, so a symlink planted anywhere inside the store is never followed:
// the store cannot be made to read, write or delete outside its root. (The root itself may be a
// symlink; that is the operator's choice.) Writes go to a temporary sibling that is fsynced and
// renamed over the final name, then the folder is fsynced: a crash or a full disk leaves the old
// object or none, never a truncated one. Temporary names contain '~', which no key may, so they
// are never served and never collide with a key. The store holds no state but its root: any
// number of threads may call it at once (the file system orders concurrent puts of one key).
#include <string>

#include "mediagen/storage/object_store.hpp"

namespace mediagen::storage {

class LocalStore final : public ObjectStore {
 public:
  // Creates the root folder (and its parents) when missing; an error when that fails or the
  // root is not a folder.
  static StoreResult<LocalStore> open(std::string root);

  const std::string& root() const { return root_; }

  StoreResult<std::unique_ptr<ObjectWriter>> open_writer(std::string_view key) override;
  StoreResult<void> put(std::string_view key, std::string_view bytes) override;
  StoreResult<std::optional<std::uint64_t>> stat(std::string_view key) override;
  StoreResult<std::string> read(std::string_view key, std::uint64_t offset, std::uint64_t length) override;
  StoreResult<std::unique_ptr<ObjectReader>> open_reader(std::string_view key) override;
  StoreResult<bool> remove(std::string_view key) override;
  StoreResult<std::uint64_t> remove_prefix(std::string_view prefix) override;

 private:
  explicit LocalStore(std::string root) : root_(std::move(root)) {}
  std::string root_;
};

}  // namespace mediagen::storage
