#pragma once
// Preview documents in Redis, one key per (key owner, preview id): the cache is shared by all
// keys of an account and invisible to every other account.
#include <optional>
#include <string>
#include <string_view>

#include "mediagen/cache/redis.hpp"
#include "mediagen/core/ids.hpp"

namespace mediagen::orders {

class PreviewStore {
 public:
  explicit PreviewStore(std::string prefix) : prefix_(std::move(prefix)) {}

  std::optional<std::string> get(cache::Redis& redis, UserId user, std::string_view id) const;
  void put(cache::Redis& redis, UserId user, std::string_view id, const std::string& document) const;
  // Marks a background plan as started; false when a document (ready or processing) exists.
  bool start_processing(cache::Redis& redis, UserId user, std::string_view id) const;

 private:
  std::string key(UserId user, std::string_view id) const;
  std::string prefix_;
};

}  // namespace mediagen::orders
