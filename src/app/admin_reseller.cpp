// The operator's reseller commands: enable a reseller (and fund its balance), and redeem a gift
// code into a user's wallet (the dashboard's part). The full code is read from the command line
// and never printed back: the answer shows its masked form.
#include <nlohmann/json.hpp>

#include "admin_output.hpp"
#include "commands.hpp"
#include "mediagen/app/database.hpp"
#include "mediagen/cache/redis.hpp"
#include "mediagen/core/log.hpp"
#include "mediagen/realtime/outside_event.hpp"
#include "mediagen/reseller/gift_codes.hpp"
#include "settings.hpp"

namespace mediagen::app {
namespace {

// Sockets subscribed on any instance learn of the redemption; a Redis that is away costs the
// event only (the code is redeemed and polling shows it).
void publish(const Config& config, const realtime::Event& event) {
  try {
    cache::Redis redis(redis_options(config, "mediagen-admin"));
    redis.command({"PUBLISH", realtime_channel(config), realtime::outside_fanout_message(fanout_secret(config), event)});
  } catch (const std::exception& e) {
    log::warn("gift_code.updated not published", {{"error", std::string_view(e.what())}});
  }
}

}  // namespace

int admin_reseller_enable(const Config& config, const ResellerEnableArgs& args) {
  Database database(config);
  const auto profile = reseller::enable_reseller(database.db(), {.user = UserId{args.user},
                                                                 .discount_bps = args.discount_bps,
                                                                 .cancel_window_minutes = args.cancel_window_minutes,
                                                                 .add_balance = args.balance.value_or(0)});
  if (!profile) return fail("no user with id " + std::to_string(args.user));
  print({{"user_id", profile->user.value},
         {"enabled", profile->enabled},
         {"discount_bps", profile->discount_bps},
         {"cancel_window_minutes", profile->cancel_window_minutes},
         {"balance_minor", profile->balance},
         {"currency", profile->asset.code}});
  return 0;
}

int admin_giftcode_redeem(const Config& config, const std::string& code, std::int64_t user) {
  Database database(config);
  const SystemClock clock;
  const auto redeemed = reseller::redeem_code(database.db(), clock, UserId{user}, code);
  if (redeemed.refusal != reseller::RedeemRefusal::none) return fail(std::string(reseller::describe(redeemed.refusal)));
  const auto& c = *redeemed.code;
  publish(config, reseller::gift_code_event(c));
  const auto utc = TimeZone::utc();
  print({{"uuid", c.uuid},
         {"code_masked", c.code_masked},
         {"user", user},
         {"nominal", std::to_string(c.nominal)},
         {"currency", c.asset.code},
         {"balance_minor", redeemed.wallet_balance},
         {"redeemed_at", utc.format(c.redeemed_at.value_or(clock.now()))}});
  return 0;
}

}  // namespace mediagen::app
