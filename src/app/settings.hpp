#pragma once
// Config turned into the option structs of the parts App builds: one function per part, so the
// composition root reads as a list of parts.
#include <string>

#include "mediagen/cache/ban_ladder.hpp"
#include "mediagen/core/config.hpp"
#include "mediagen/db/async_pg.hpp"
#include "mediagen/db/blocking_pool.hpp"
#include "mediagen/engines/upstream.hpp"
#include "mediagen/http/pipeline.hpp"
#include "mediagen/http/server.hpp"
#include "mediagen/realtime/hub.hpp"
#include "mediagen/workers/worker_pool.hpp"

namespace mediagen::app {

cache::RedisOptions redis_options(const Config& config, std::string client_name);
db::ConnectLimits connect_limits(const Config& config);
db::BlockingPoolOptions blocking_options(const Config& config);
db::AsyncPgOptions read_options(const Config& config);
cache::BanLadderOptions ladder_options(const Config& config);
realtime::HubOptions hub_options(const Config& config);
// The channel secret, the same on every instance that shares MEDIAGEN_SECRET.
std::string pusher_secret(const Config& config);
std::string fanout_secret(const Config& config);
// The secret of signed download links; without MEDIAGEN_SECRET one of this process only.
std::string link_secret(const Config& config);
workers::ContentRules content_rules(const Config& config);
// Without the hooks, which App sets.
workers::WorkerPoolOptions worker_options(const Config& config);
engines::UpstreamOptions upstream_options(const Config& config);
http::PipelineOptions pipeline_options(const Config& config);
http::ServerOptions public_server_options(const Config& config, http::UpgradeHandler& upgrade);
http::ServerOptions admin_server_options(const Config& config);

// The fan-out channels on Redis.
std::string realtime_channel(const Config& config);
std::string queue_channel(const Config& config);  // new work in the queue, from any instance

}  // namespace mediagen::app
