// `admin webhook ...`: JSON on stdout, one error line otherwise. The secret is printed when an
// endpoint is made or its secret rotated, for the receiver's operator to copy.
#include "admin_webhook.hpp"

#include <algorithm>

#include "admin_output.hpp"
#include "mediagen/app/database.hpp"
#include "mediagen/core/time_zone.hpp"
#include "mediagen/core/uuid_id.hpp"
#include "mediagen/webhooks/url_guard.hpp"
#include "mediagen/webhooks/webhooks.hpp"

namespace mediagen::app {
namespace {

using ojson = nlohmann::ordered_json;

constexpr std::size_t kLogLimit = 100;

ojson endpoint_json(const webhooks::Endpoint& e, bool with_secret) {
  ojson out{{"id", e.id}, {"user_id", e.user.value}, {"url", e.url}, {"events", e.events}, {"enabled", e.enabled}};
  out["disabled_reason"] = e.disabled_reason ? ojson(*e.disabled_reason) : ojson();
  if (with_secret) out["secret"] = e.secret;
  out["created_at"] = TimeZone::utc().format(e.created_at);
  return out;
}

ojson log_json(const webhooks::MessageLog& m) {
  const auto utc = TimeZone::utc();
  ojson attempts = ojson::array();
  for (const auto& a : m.attempts) {
    attempts.push_back({{"at", utc.format(a.at)},
                        {"status_code", a.status_code ? ojson(*a.status_code) : ojson()},
                        {"error", a.error ? ojson(*a.error) : ojson()},
                        {"duration_ms", a.duration_ms}});
  }
  return {{"id", m.id},
          {"type", m.type},
          {"status", webhooks::to_string(m.status)},
          {"attempts", attempts},
          {"next_attempt_at", m.next_attempt_at ? ojson(utc.format(*m.next_attempt_at)) : ojson()},
          {"created_at", utc.format(m.created_at)}};
}

// --events: known types, at least one; empty: every event.
std::optional<std::vector<std::string>> read_events(const std::string& list) {
  std::vector<std::string> out;
  std::string item;
  for (const char c : list + ",") {
    if (c != ',') {
      if (c != ' ') item += c;
      continue;
    }
    if (item.empty()) continue;
    if (std::find(webhooks::kEventTypes.begin(), webhooks::kEventTypes.end(), item) == webhooks::kEventTypes.end()) {
      return std::nullopt;
    }
    if (std::find(out.begin(), out.end(), item) == out.end()) out.push_back(item);
    item.clear();
  }
  if (out.empty()) out.assign(webhooks::kEventTypes.begin(), webhooks::kEventTypes.end());
  return out;
}

int no_endpoint(std::int64_t id) { return fail("no webhook endpoint with id " + std::to_string(id)); }

}  // namespace

int admin_webhook_add(const Config& config, const WebhookArgs& args) {
  const auto checked = webhooks::check_url(args.url, webhooks::AllowList::parse(config.webhook_allow_hosts));
  if (!checked.url) {
    return fail("--url must be an absolute https URL (http only to a host in MEDIAGEN_WEBHOOK_ALLOW_HOSTS), at most " +
                std::to_string(webhooks::kMaxUrlBytes) + " bytes, not to a loopback, private or link-local address");
  }
  if (!checked.url->allowed && !checked.url->literal_ip && webhooks::resolves_to_refused(*checked.url)) {
    return fail("--url resolves to a loopback, private or link-local address");
  }
  const auto events = read_events(args.events);
  if (!events) {
    std::string known;
    for (auto t : webhooks::kEventTypes) known += (known.empty() ? "" : ", ") + std::string(t);
    return fail("--events takes a comma-separated list of: " + known);
  }
  Database database(config);
  const auto made = webhooks::add_endpoint(database.db(), UserId{args.user}, args.url, *events);
  if (!made) return fail("no user with id " + std::to_string(args.user));
  print(endpoint_json(*made, true));
  return 0;
}

int admin_webhook_list(const Config& config, const WebhookArgs& args) {
  Database database(config);
  ojson out = ojson::array();
  for (const auto& e : webhooks::list_endpoints(database.db(), UserId{args.user})) out.push_back(endpoint_json(e, false));
  print(out);
  return 0;
}

int admin_webhook_remove(const Config& config, const WebhookArgs& args) {
  Database database(config);
  if (!webhooks::remove_endpoint(database.db(), args.id)) return no_endpoint(args.id);
  print({{"id", args.id}, {"removed", true}});
  return 0;
}

int admin_webhook_enable(const Config& config, const WebhookArgs& args, bool enabled) {
  Database database(config);
  const auto e = webhooks::set_endpoint_enabled(database.db(), args.id, enabled);
  if (!e) return no_endpoint(args.id);
  print(endpoint_json(*e, false));
  return 0;
}

int admin_webhook_rotate(const Config& config, const WebhookArgs& args) {
  Database database(config);
  const auto e = webhooks::rotate_endpoint_secret(database.db(), args.id, std::chrono::hours(24));
  if (!e) return no_endpoint(args.id);
  print(endpoint_json(*e, true));
  return 0;
}

int admin_webhook_deliveries(const Config& config, const WebhookArgs& args) {
  Database database(config);
  ojson out = ojson::array();
  for (const auto& m : webhooks::endpoint_deliveries(database.db(), args.id, args.status == webhooks::to_string(webhooks::MessageStatus::failed), kLogLimit)) {
    out.push_back(log_json(m));
  }
  print(out);
  return 0;
}

int admin_webhook_redeliver(const Config& config, const WebhookArgs& args) {
  if (!WebhookMessageId::parse(args.message)) return fail("--message must be a webhook-id (a UUID)");
  Database database(config);
  if (!webhooks::redeliver(database.db(), args.message)) return fail("no webhook message with id " + args.message);
  print({{"id", args.message}, {"status", webhooks::to_string(webhooks::MessageStatus::pending)}});
  return 0;
}

}  // namespace mediagen::app
