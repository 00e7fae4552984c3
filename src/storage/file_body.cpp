#include "file_body.hpp"

#include <algorithm>
#include <cerrno>
#include <utility>

#include "mediagen/core/log.hpp"

namespace mediagen::storage {

FileBody::FileBody(ReadPool& pool, std::unique_ptr<ObjectReader> reader, std::string key, std::uint64_t offset,
                   std::uint64_t length)
    : pool_(pool),
      cursor_(std::make_shared<Cursor>(Cursor{std::move(reader), std::move(key), offset, length})),
      length_(length) {}

StoreResult<std::string> FileBody::read_piece(Cursor& cursor) {
  const std::uint64_t wanted = std::min(cursor.left, kDownloadPieceBytes);
  auto piece = cursor.reader->read(cursor.position, wanted);
  if (!piece) return piece.error();
  // A reader sees the object as it was opened, so a short piece means it was cut in place.
  if (piece->size() != wanted) return StoreError::io("read", cursor.key, EIO);
  cursor.position += wanted;
  cursor.left -= wanted;
  return piece;
}

StoreResult<void> FileBody::preload() {
  if (cursor_->left == 0) return {};
  auto piece = read_piece(*cursor_);
  if (!piece) return piece.error();
  preloaded_ = std::move(*piece);
  return {};
}

boost::asio::awaitable<std::optional<std::string>> FileBody::next() {
  if (preloaded_) co_return std::exchange(preloaded_, std::nullopt);
  if (cursor_->left == 0) co_return std::nullopt;
  // The cursor is shared with the job: it outlives the body should the connection go first.
  auto read = [cursor = cursor_]() -> std::optional<std::string> {
    auto piece = read_piece(*cursor);
    if (piece) return std::move(*piece);
    log::warn("download cut: the stored file could not be read", {{"error", std::string_view(piece.error().detail)}});
    return std::nullopt;
  };
  co_return co_await pool_.run(std::move(read));
}

}  // namespace mediagen::storage
