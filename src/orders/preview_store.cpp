#include "preview_store.hpp"

#include "mediagen/orders/preview.hpp"

namespace mediagen::orders {

std::string PreviewStore::key(UserId user, std::string_view id) const {
  return prefix_ + "preview:" + std::to_string(user.value) + ":" + std::string(id);
}

std::optional<std::string> PreviewStore::get(cache::Redis& redis, UserId user, std::string_view id) const {
  auto reply = redis.command({"GET", key(user, id)});
  if (reply.is_nil()) return std::nullopt;
  return std::move(reply.str);
}

void PreviewStore::put(cache::Redis& redis, UserId user, std::string_view id, const std::string& document) const {
  redis.command({"SET", key(user, id), document, "EX", std::to_string(kPreviewTtl.count())});
}

bool PreviewStore::start_processing(cache::Redis& redis, UserId user, std::string_view id) const {
  auto reply = redis.command({"SET", key(user, id), render_processing(id), "NX", "EX",
                              std::to_string(kPreviewTtl.count())});
  return !reply.is_nil();
}

}  // namespace mediagen::orders
