#pragma once
// POST {prefix}/broadcasting/auth: signs a socket's subscription to one private channel.
//   body  socket_id, channel_name; form-encoded (what pusher-js sends) or JSON (Laravel Echo)
//   200   {"auth":"<app_key>:<hex>"} at the top level, no envelope: what pusher-js reads
//   422   socket_id or channel_name missing or malformed, or a channel that is not one of ours
//   403   the key lacks the channel's scope, or the channel's order or user is not the key
//         owner's (a nonexistent order looks the same as another account's)
#include <functional>

#include "mediagen/realtime/channel_signer.hpp"
#include "mediagen/realtime/grant.hpp"

namespace mediagen::http {
class Router;
}
namespace mediagen::db {
class BlockingPool;
struct Resources;
}  // namespace mediagen::db

namespace mediagen::realtime {

struct AuthRouteOptions {
  const ChannelSigner& signer;
  // Runs on the blocking-pool thread after access was granted, before the answer: records which key
  // authorized the socket for the channel (may be empty). False when the record could not reach
  // the socket's instance: the answer is then 503, since an authorization whose grant is missing
  // would subscribe without its key being checked.
  std::function<bool(db::Resources&, const Grant&)> on_granted;
};

void register_auth_routes(http::Router& router, db::BlockingPool& pool, AuthRouteOptions options);

}  // namespace mediagen::realtime
