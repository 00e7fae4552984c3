#pragma once
// `mediagen admin webhook ...`: account endpoints, standing in for the dashboard (openapi
// "Webhooks"; CONTRACTS "Operator CLI").
#include <cstdint>
#include <string>

#include "mediagen/core/config.hpp"

namespace mediagen::app {

struct WebhookArgs {
  std::int64_t user = 0;
  std::int64_t id = 0;
  std::string url;
  std::string events;  // comma-separated; empty: every event
  std::string status;  // deliveries: "failed" or empty
  std::string message;
};

int admin_webhook_add(const Config& config, const WebhookArgs& args);
int admin_webhook_list(const Config& config, const WebhookArgs& args);
int admin_webhook_remove(const Config& config, const WebhookArgs& args);
int admin_webhook_enable(const Config& config, const WebhookArgs& args, bool enabled);
int admin_webhook_rotate(const Config& config, const WebhookArgs& args);
int admin_webhook_deliveries(const Config& config, const WebhookArgs& args);
int admin_webhook_redeliver(const Config& config, const WebhookArgs& args);

}  // namespace mediagen::app
