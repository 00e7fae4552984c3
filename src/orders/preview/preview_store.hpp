#pragma once
// Preview documents in Redis, one key per (key owner, preview id): the cache is shared by all
// keys of an account and invisible to every other account.
//
// What Redis holds is bounded: a document is stored packed (preview_codec.hpp: about three
// times smaller than its JSON for prose; a 1,000,000-character plan of prose packs to about
// 430 KB). A packed plan above kLargePreviewBytes lives kLargePreviewTtl instead of kPreviewTtl,
// and an account keeps at most kLargePreviewsPerUser of them: a newer one evicts the oldest. So
// at 30 previews a minute a key holds at most 900 plans of up to 64 KiB (about 56 MiB) and 4
// large ones, where 30 minutes of whole plans could reach 900 of several megabytes each. A GET
// for an evicted or expired plan answers 404, as the spec documents (resubmit with POST).
#include <chrono>
#include <cstddef>
#include <optional>
#include <string>
#include <string_view>

#include "mediagen/cache/redis.hpp"
#include "mediagen/core/ids.hpp"

namespace mediagen::orders {

inline constexpr std::size_t kLargePreviewBytes = 64 * 1024;
inline constexpr std::chrono::seconds kLargePreviewTtl{300};
inline constexpr std::size_t kLargePreviewsPerUser = 4;

class PreviewStore {
 public:
  explicit PreviewStore(std::string prefix) : prefix_(std::move(prefix)) {}

  // The document as rendered; nullopt when absent or unreadable.
  std::optional<std::string> get(cache::Redis& redis, UserId user, std::string_view id) const;
  void put(cache::Redis& redis, UserId user, std::string_view id, const std::string& document) const;
  // Marks a background plan as started; false when a document (ready or processing) exists.
  bool start_processing(cache::Redis& redis, UserId user, std::string_view id) const;

  std::string key(UserId user, std::string_view id) const;

 private:
  std::string prefix_;
};

}  // namespace mediagen::orders
