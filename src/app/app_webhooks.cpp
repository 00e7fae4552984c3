// The webhook deliverer's wiring: its settings, the events it renders itself when nobody filled
// in a message's data (the same payloads as the realtime events, from each domain), and the
// background preview's `ready`, which has no row for a trigger to see.
#include <nlohmann/json.hpp>

#include "mediagen/app/app.hpp"
#include "mediagen/core/json_text.hpp"
#include "mediagen/core/log.hpp"
#include "mediagen/core/uuid_id.hpp"
#include "mediagen/db/blocking_pool.hpp"
#include "mediagen/realtime/channel.hpp"
#include "mediagen/webhooks/webhooks.hpp"
#include "mediagen/reseller/gift_codes.hpp"
#include "mediagen/voices/clones.hpp"
#include "settings.hpp"

namespace mediagen::app {
namespace {

std::optional<std::string> clone_data(db::Db& db, const webhooks::Unrendered& u) {
  const auto id = CloneId::parse(u.subject_id);
  if (!id) return std::nullopt;
  for (std::string_view service : {"provider_c", "provider_d"}) {
    auto clone = voices::find_clone(db, UserId{u.user_id}, service, *id);
    if (clone) return voices::clone_event(*clone).data;
  }
  return std::nullopt;
}

}  // namespace

webhooks::DelivererOptions App::webhook_options() const {
  auto cipher = std::make_shared<const reseller::CodeCipher>(config_.secret);
  return webhooks::DelivererOptions{
      .database_url = config_.database_url,
      .limits = connect_limits(config_),
      .allow = webhook_allow_,
      .timeout = std::chrono::milliseconds(config_.webhook_timeout_ms),
      .schedule = config_.webhook_retry_schedule,
      .max_in_flight = config_.webhook_max_in_flight,
      .max_in_flight_per_url = config_.webhook_max_in_flight_per_url,
      .resolve = config_.webhook_resolve,
      .render = [cipher](db::Db& db, const webhooks::Unrendered& u) -> std::optional<std::string> {
        if (u.type == "order.updated" || u.type == "order.item.updated") {
          return orders::webhook_event_data(db, u.order_id, u.subject_id, u.type == "order.item.updated");
        }
        if (u.type == "voice_clone.updated") return clone_data(db, u);
        if (u.type == "gift_code.updated") {
          auto code = reseller::find_code(db, *cipher, UserId{u.user_id}, GiftCodeId::parse(u.subject_id));
          if (code) return reseller::gift_code_event(*code).data;
        }
        return std::nullopt;
      }};
}

void App::preview_ready(db::Resources& r, UserId user, std::string_view preview_id) {
  nlohmann::json data = {{"preview_id", preview_id}, {"status", "ready"}};
  std::string text = to_json_text(data);
  hub_.publish({.channel = realtime::preview_channel(user), .name = "ready", .data = text});
  // Only the account's endpoints take it; a failure costs the webhook, not the preview.
  try {
    webhooks::note_event(r.db, user, "preview.ready", preview_id, text);
    webhooks_.wake();
  } catch (const std::exception& e) {
    log::warn("preview.ready webhook not written", {{"error", std::string_view(e.what())}});
  }
}

}  // namespace mediagen::app
