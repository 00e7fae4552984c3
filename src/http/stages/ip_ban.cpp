#include "stages.hpp"

namespace mediagen::http::stages {

std::optional<ApiError> check_ip_ban(const RequestContext& ctx, const cache::BanList& bans,
                                     const cache::BanLadder& ladder, TimePoint now) {
  auto ban = bans.check(ctx.client_ip, now);
  if (!ban) return std::nullopt;
  auto left = std::chrono::duration_cast<std::chrono::seconds>(ban->until - now).count();
  if (left < 1) left = 1;
  return ApiError::ip_banned(ban->until, left, ban->step, ladder.options().ladder_seconds);
}

}  // namespace mediagen::http::stages
