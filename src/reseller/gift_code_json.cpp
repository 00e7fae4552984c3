// A gift code as the API (spec 2.7) and the realtime event show it. The redeemer is never shown;
// the event never carries the full code.
#include <nlohmann/json.hpp>

#include "mediagen/core/json_text.hpp"
#include "mediagen/realtime/channel.hpp"
#include "mediagen/reseller/gift_codes.hpp"
#include "asset_json.hpp"

namespace mediagen::reseller {
namespace {

using ojson = nlohmann::ordered_json;

ojson time_or_null(const std::optional<TimePoint>& t, const TimeZone& tz) {
  return t ? ojson(tz.format(*t)) : ojson(nullptr);
}

// Minor units as a string, and the same in whole units as a number.
void add_amount(ojson& j, const char* key, std::int64_t minor, int precision) {
  j[key] = std::to_string(minor);
  j[std::string(key) + "_formatted"] = to_whole_units(MinorUnits{minor}, precision);
}

}  // namespace

std::string gift_code_json(const GiftCode& c, const TimeZone& tz) {
  ojson j = ojson::object();
  j["uuid"] = c.uuid;
  j["code_masked"] = c.code_masked;
  if (c.code) j["code"] = *c.code;
  add_amount(j, "nominal", c.nominal, c.asset.precision);
  add_amount(j, "cost", c.cost, c.asset.precision);
  j["discount_bps"] = c.discount_bps;
  j["source"] = c.source;
  j["funding"] = c.funding;
  j["status"] = to_string(c.status);
  j["activatable_at"] = time_or_null(c.activatable_at, tz);
  j["redeemed_at"] = time_or_null(c.redeemed_at, tz);
  j["cancelled_at"] = time_or_null(c.cancelled_at, tz);
  j["created_at"] = tz.format(c.created_at);
  j["currency_asset"] = asset_json(c.asset);
  return to_json_text(j);
}

realtime::Event gift_code_event(const GiftCode& c) {
  const auto utc = TimeZone::utc();
  ojson j = ojson::object();
  j["uuid"] = c.uuid;
  j["code_masked"] = c.code_masked;
  j["status"] = to_string(c.status);
  add_amount(j, "nominal", c.nominal, c.asset.precision);
  j["currency_asset"] = asset_json(c.asset);
  j["activatable_at"] = time_or_null(c.activatable_at, utc);
  j["redeemed_at"] = time_or_null(c.redeemed_at, utc);
  j["cancelled_at"] = time_or_null(c.cancelled_at, utc);
  j["updated_at"] = utc.format(c.updated_at);
  return {.channel = realtime::reseller_codes_channel(c.reseller), .name = "gift_code.updated", .data = to_json_text(j)};
}

}  // namespace mediagen::reseller
