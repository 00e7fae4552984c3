// The operator CLI's side of the invalidation channel (invalidation.hpp): one message, published
// on a connection of its own.
#include <cstdio>

#include "invalidation.hpp"
#include "settings.hpp"
#include "mediagen/cache/redis.hpp"

namespace mediagen::app {

void publish_invalidation(const Config& config, const Invalidation& what) {
  if (config.secret.empty() && config.pusher_secret.empty()) {
    std::fprintf(stderr, "warning: MEDIAGEN_SECRET is not set, so running servers cannot trust this notice; they pick "
                         "the change up within their cache TTLs\n");
  }
  try {
    cache::Redis redis({.url = config.redis_url});
    const auto signer = invalidation_signer(fanout_secret(config));
    redis.command({"PUBLISH", invalidation_channel(config.redis_prefix), signer.sign(format_invalidation(what))});
  } catch (const std::exception& e) {
    std::fprintf(stderr, "warning: could not notify running servers (%s); they pick the change up within their cache TTLs\n",
                 e.what());
  }
}

}  // namespace mediagen::app
