#pragma once
// The command line of the webhook commands (main.cpp only: CLI11 is the binary's).
#include <CLI/CLI.hpp>
#include <optional>

#include "admin_webhook.hpp"
#include "mediagen/webhooks/webhooks.hpp"

namespace mediagen::app {

struct WebhookCommands {
  WebhookArgs args;
  CLI::App *add = nullptr, *list = nullptr, *remove = nullptr, *enable = nullptr, *disable = nullptr,
           *rotate = nullptr, *deliveries = nullptr, *redeliver = nullptr;
};

inline void add_webhook_commands(CLI::App& admin, WebhookCommands& c) {
  auto* webhook = admin.add_subcommand("webhook", "Account webhook endpoints");
  webhook->require_subcommand(1);
  auto& a = c.args;
  c.add = webhook->add_subcommand("add", "Add an endpoint that receives the account's events");
  c.add->add_option("--user", a.user)->required();
  c.add->add_option("--url", a.url)->required();
  c.add->add_option("--events", a.events, "Comma-separated event types; default: every event");
  c.list = webhook->add_subcommand("list", "The account's endpoints");
  c.list->add_option("--user", a.user)->required();
  auto by_id = [&](const char* name, const char* what) {
    auto* sub = webhook->add_subcommand(name, what);
    sub->add_option("--id", a.id)->required();
    return sub;
  };
  c.remove = by_id("remove", "Remove an endpoint and its messages");
  c.enable = by_id("enable", "Enable an endpoint");
  c.disable = by_id("disable", "Disable an endpoint: its messages are not sent");
  c.rotate = by_id("rotate-secret", "A new secret; the old one keeps signing beside it for 24 hours");
  c.deliveries = by_id("deliveries", "An endpoint's messages, newest first, with their attempts");
  c.deliveries->add_option("--status", a.status, "Only the messages that ended failed")
      ->check(CLI::IsMember({std::string(webhooks::to_string(webhooks::MessageStatus::failed))}));
  c.redeliver = webhook->add_subcommand("redeliver", "Send a message again now (its webhook-id stays)");
  c.redeliver->add_option("--message", a.message)->required();
}

// The exit code when one of these commands was given.
inline std::optional<int> run_webhook_command(const Config& config, const WebhookCommands& c) {
  if (!c.add) return std::nullopt;
  if (c.add->parsed()) return admin_webhook_add(config, c.args);
  if (c.list->parsed()) return admin_webhook_list(config, c.args);
  if (c.remove->parsed()) return admin_webhook_remove(config, c.args);
  if (c.enable->parsed()) return admin_webhook_enable(config, c.args, true);
  if (c.disable->parsed()) return admin_webhook_enable(config, c.args, false);
  if (c.rotate->parsed()) return admin_webhook_rotate(config, c.args);
  if (c.deliveries->parsed()) return admin_webhook_deliveries(config, c.args);
  if (c.redeliver->parsed()) return admin_webhook_redeliver(config, c.args);
  return std::nullopt;
}

}  // namespace mediagen::app
