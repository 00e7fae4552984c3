#pragma once
#include <functional>
#include <string>
#include <string_view>

#include "mediagen/core/ids.hpp"

namespace mediagen::http {
class Router;
}
namespace mediagen::db {
class BlockingPool;
}

namespace mediagen::orders {

struct PreviewOptions {
  std::string redis_prefix;
  // Called (on a blocking-pool thread) when a background preview is ready: the realtime
  // `ready` event on private-chunks.preview.{userId} is sent from here.
  std::function<void(UserId user, std::string_view preview_id)> on_ready;
};

// POST /orders/chunks/preview, GET /orders/chunks/preview, GET /orders/chunks/preview/{previewId}.
void register_preview_routes(http::Router& router, db::BlockingPool& pool, PreviewOptions options);

}  // namespace mediagen::orders
