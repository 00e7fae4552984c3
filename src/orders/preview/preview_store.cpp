#include "preview_store.hpp"

#include "mediagen/orders/preview.hpp"
#include "preview_codec.hpp"

namespace mediagen::orders {

namespace {

// KEYS: the account's list of large plans, the plan's key. ARGV: the packed plan, its TTL, how
// many large plans an account keeps. One script, so that two large plans stored at once cannot
// both skip the eviction.
constexpr std::string_view kPutLarge = R"(
redis.call('SET', KEYS[2], ARGV[1], 'EX', ARGV[2])
redis.call('LREM', KEYS[1], 0, KEYS[2])
redis.call('LPUSH', KEYS[1], KEYS[2])
local keep = tonumber(ARGV[3])
for _, old in ipairs(redis.call('LRANGE', KEYS[1], keep, -1)) do redis.call('DEL', old) end
redis.call('LTRIM', KEYS[1], 0, keep - 1)
redis.call('EXPIRE', KEYS[1], ARGV[2])
return 1
)";

}  // namespace

std::string PreviewStore::key(UserId user, std::string_view id) const {
  return prefix_ + "preview:" + std::to_string(user.value) + ":" + std::string(id);
}

std::optional<std::string> PreviewStore::get(cache::Redis& redis, UserId user, std::string_view id) const {
  auto reply = redis.command({"GET", key(user, id)});
  if (reply.is_nil()) return std::nullopt;
  return unpack_preview(reply.str);
}

void PreviewStore::put(cache::Redis& redis, UserId user, std::string_view id, const std::string& document) const {
  std::string packed = pack_preview(document);
  if (packed.size() <= kLargePreviewBytes) {
    redis.command({"SET", key(user, id), std::move(packed), "EX", std::to_string(kPreviewTtl.count())});
    return;
  }
  const std::string large = prefix_ + "preview-large:" + std::to_string(user.value);
  redis.eval(kPutLarge, {large, key(user, id)},
             {std::move(packed), std::to_string(kLargePreviewTtl.count()), std::to_string(kLargePreviewsPerUser)});
}

bool PreviewStore::start_processing(cache::Redis& redis, UserId user, std::string_view id) const {
  auto reply = redis.command({"SET", key(user, id), render_processing(id), "NX", "EX",
                              std::to_string(kPreviewTtl.count())});
  return !reply.is_nil();
}

}  // namespace mediagen::orders
