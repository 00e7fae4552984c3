#pragma once
// A stored object's bytes [offset, offset + length) as an HTTP body, read in bounded pieces on
// the read pool as the client takes them: one piece in memory per download, whatever the size.
#include <cstdint>
#include <memory>
#include <optional>
#include <string>

#include "mediagen/http/message.hpp"
#include "mediagen/storage/object_store.hpp"
#include "read_pool.hpp"

namespace mediagen::storage {

// 256 KiB: few hops to the read pool for a fast client, little memory for a slow one.
inline constexpr std::uint64_t kDownloadPieceBytes = 256 * 1024;

class FileBody final : public http::BodySource {
 public:
  FileBody(ReadPool& pool, std::unique_ptr<ObjectReader> reader, std::string key, std::uint64_t offset,
           std::uint64_t length);

  std::uint64_t size() const override { return length_; }

  // Blocking (a read-pool thread): reads the first piece now, so that a file that cannot be read
  // still gets an error response instead of a cut connection.
  StoreResult<void> preload();

  boost::asio::awaitable<std::optional<std::string>> next() override;

 private:
  // What the pieces read so far have left; shared with a read in flight.
  struct Cursor {
    std::unique_ptr<ObjectReader> reader;
    std::string key;
    std::uint64_t position;
    std::uint64_t left;
  };
  // Blocking: the next piece, or why it cannot be had (the object ends early: it changed).
  static StoreResult<std::string> read_piece(Cursor& cursor);

  ReadPool& pool_;
  std::shared_ptr<Cursor> cursor_;
  std::uint64_t length_;
  std::optional<std::string> preloaded_;
};

}  // namespace mediagen::storage
