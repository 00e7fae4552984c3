#pragma once
// What the S3 store's files share: the answers' meaning and the writer and reader factories.
#include <algorithm>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>

#include "mediagen/storage/s3_store.hpp"
#include "s3_http.hpp"

namespace mediagen::storage::s3 {

// SigV4's longest presigned life.
inline constexpr std::int64_t kMaxPresignSeconds = 7 * 86400;

// What a ranged GET of `length` bytes may answer: the bytes, or an error's XML beside them
// (callers check the length they got). Saturates rather than wraps.
inline std::size_t answer_room(std::uint64_t length) {
  constexpr std::uint64_t kErrorBodyBytes = 64 * 1024;
  constexpr std::uint64_t kMost = std::uint64_t{1} << 40;
  return static_cast<std::size_t>(std::min(length, kMost) + kErrorBodyBytes);
}

bool is_success(const HttpResponse& r);
// io_error (callers that read answer a 404 as not_found themselves) naming the operation, the key, the status and S3's error code and message.
StoreError answer_error(std::string_view operation, std::string_view key, const HttpResponse& r);

std::unique_ptr<ObjectWriter> make_writer(S3Store& store, std::string key);
std::unique_ptr<ObjectReader> make_reader(S3Store& store, std::string key, std::uint64_t size, std::string etag);

}  // namespace mediagen::storage::s3
