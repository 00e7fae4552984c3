#include <CLI/CLI.hpp>
#include <cstdio>

#include "admin_catalog_cli.hpp"
#include "admin_upstream_cli.hpp"
#include "admin_webhook_cli.hpp"
#include "commands.hpp"
#include "mediagen/core/log.hpp"
#include "mediagen/db/connection.hpp"

using namespace mediagen;

namespace {

// What the command line asked for: the values of every option and the subcommands that hold them.
struct Command {
  CLI::App* serve = nullptr;
  CLI::App* admin = nullptr;
  bool no_migrate = false;
  std::string listen, admin_listen;
  std::string email, name, locale = "en";
  std::int64_t balance = 0, user_id = 0, add = 0, key_id = 0;
  app::KeyCreateArgs key;
  std::string plan_code, sub_expires, maintenance_state;
  std::string service_code, payg_state, wallet_state, confirm_state;
  CLI::App* service_payg = nullptr;
  CLI::App* confirm_mode = nullptr;
  app::PlanArgs plan;
  CLI::App *plan_upsert = nullptr, *sub_cancel = nullptr;
  CLI::App *user_create = nullptr, *user_balance = nullptr, *user_block = nullptr, *user_unblock = nullptr;
  CLI::App* user_wallet = nullptr;
  CLI::App *key_create = nullptr, *key_disable = nullptr, *sub_grant = nullptr, *maintenance = nullptr;
  bool skip_voice_features = false;
  std::string features_service;
  CLI::App* voice_features = nullptr;
  app::ResellerEnableArgs reseller;
  std::string gift_code;
  CLI::App *reseller_enable = nullptr, *giftcode_redeem = nullptr;
  app::CatalogCommands catalog;
  app::UpstreamCommands upstream;
  app::WebhookCommands webhook;
};

void add_serve(CLI::App& cli, Command& c, Config& config) {
  c.serve = cli.add_subcommand("serve", "Serve the public API and the operator listener");
  c.serve->add_flag("--no-migrate", c.no_migrate, "Do not apply pending migrations at start");
  c.serve->add_option("--listen", c.listen, "Public listener host:port (MEDIAGEN_LISTEN)");
  c.serve->add_option("--admin-listen", c.admin_listen, "Operator listener host:port (MEDIAGEN_ADMIN_LISTEN)");
  c.serve->add_option("--io-threads", config.io_threads, "I/O threads (MEDIAGEN_IO_THREADS)")->check(CLI::Range(1, 64));
  cli.add_subcommand("migrate", "Apply pending database migrations");
}

void add_user_commands(CLI::App& admin, Command& c) {
  auto* user = admin.add_subcommand("user", "Users");
  user->require_subcommand(1);
  c.user_create = user->add_subcommand("create", "Create a user");
  c.user_create->add_option("--email", c.email)->required();
  c.user_create->add_option("--name", c.name);
  c.user_create->add_option("--locale", c.locale)->check(CLI::IsMember({"en", "ru"}));
  c.user_create->add_option("--balance", c.balance, "Initial balance in minor units")->check(CLI::NonNegativeNumber);
  c.user_balance = user->add_subcommand("balance", "Add to (or, negative, take from) a balance");
  c.user_balance->add_option("--user", c.user_id)->required();
  c.user_balance->add_option("--add", c.add, "Minor units")->required();
  c.user_block = user->add_subcommand("block", "Block a user: every key of theirs stops working");
  c.user_block->add_option("--user", c.user_id)->required();
  c.user_unblock = user->add_subcommand("unblock", "Unblock a user");
  c.user_unblock->add_option("--user", c.user_id)->required();
  c.user_wallet = user->add_subcommand("wallet", "Switch the account's wallet and ledger listings on or off");
  c.user_wallet->add_option("--user", c.user_id)->required();
  c.user_wallet->add_option("state", c.wallet_state)->required()->check(CLI::IsMember({"on", "off"}));
}

void add_key_commands(CLI::App& admin, Command& c) {
  auto* key = admin.add_subcommand("key", "API keys");
  key->require_subcommand(1);
  app::KeyCreateArgs& k = c.key;
  c.key_create = key->add_subcommand("create", "Create an API key; prints the key once");
  c.key_create->add_option("--user", k.user)->required();
  c.key_create->add_option("--preset", k.preset)->check(CLI::IsMember({"read_only", "automation", "full"}));
  c.key_create->add_option("--scopes", k.scopes, "Comma-separated scopes, '*' for the wildcard");
  c.key_create->add_option("--name", k.name);
  c.key_create->add_option("--expires-at", k.expires_at, "ISO 8601");
  c.key_create->add_option("--rate-per-minute", k.rate_per_minute);
  c.key_create->add_option("--rate-per-hour", k.rate_per_hour);
  c.key_create->add_option("--rate-per-day", k.rate_per_day);
  c.key_create->add_option("--tokens-per-minute", k.tokens_per_minute);
  c.key_create->add_option("--tokens-per-hour", k.tokens_per_hour);
  c.key_create->add_option("--tokens-per-day", k.tokens_per_day);
  c.key_create->add_option("--tokens-per-month", k.tokens_per_month);
  c.key_create->add_option("--tokens-quota", k.tokens_quota);
  c.key_create->add_option("--ai-monthly-limit", k.ai_monthly_limit, "Minor units");
  c.key_disable = key->add_subcommand("disable", "Disable a key");
  c.key_disable->add_option("--id", c.key_id)->required();
}

void add_billing_commands(CLI::App& admin, Command& c) {
  auto* subscription = admin.add_subcommand("subscription", "Subscriptions");
  subscription->require_subcommand(1);
  c.sub_grant = subscription->add_subcommand("grant", "Start a subscription to a plan now");
  c.sub_grant->add_option("--user", c.user_id)->required();
  c.sub_grant->add_option("--plan", c.plan_code)->required();
  c.sub_grant->add_option("--expires-at", c.sub_expires, "ISO 8601; default one plan period from now");
  c.sub_cancel = subscription->add_subcommand("cancel", "End the live subscription now; its unspent quota lapses");
  c.sub_cancel->add_option("--user", c.user_id)->required();
  auto* plan = admin.add_subcommand("plan", "Plans");
  plan->require_subcommand(1);
  app::PlanArgs& p = c.plan;
  c.plan_upsert = plan->add_subcommand("upsert", "Create or change a plan; options left out keep their value");
  c.plan_upsert->add_option("--code", p.code)->required();
  c.plan_upsert->add_option("--name", p.name);
  c.plan_upsert->add_option("--tokens", p.tokens, "Token quota per period")->check(CLI::NonNegativeNumber);
  c.plan_upsert->add_option("--period-days", p.period_days)->check(CLI::Range(1, 3660));
  c.plan_upsert->add_option("--slots", p.slots, "Orders active at once; 0: no limit")->check(CLI::Range(0, 100000));
  c.plan_upsert->add_option("--price", p.price, "Minor units per period")->check(CLI::NonNegativeNumber);
  c.plan_upsert->add_option("--clone-limit", p.clone_limit)->check(CLI::Range(0, 100000));
  c.plan_upsert->add_option("--clone-limit-provider-d", p.clone_limit_provider_d)->check(CLI::Range(0, 100000));
  c.plan_upsert->add_option("--service", p.services, "A service the quota pays for: KEY or KEY=TOKENS per period");
  c.plan_upsert->add_flag("--no-services", p.no_services, "Entitle no service");
}

void add_reseller_commands(CLI::App& admin, Command& c) {
  auto* reseller = admin.add_subcommand("reseller", "Resellers");
  reseller->require_subcommand(1);
  app::ResellerEnableArgs& r = c.reseller;
  c.reseller_enable = reseller->add_subcommand("enable", "Make a user a reseller, or change its terms");
  c.reseller_enable->add_option("--user", r.user)->required();
  c.reseller_enable->add_option("--balance", r.balance, "Minor units added to the reseller balance")
      ->check(CLI::NonNegativeNumber);
  c.reseller_enable->add_option("--discount-bps", r.discount_bps, "Discount on gift codes, 100 = 1%")
      ->check(CLI::Range(0, 10000));
  c.reseller_enable->add_option("--cancel-window-minutes", r.cancel_window_minutes,
                                "How long after issue a code may be cancelled")
      ->check(CLI::Range(0, 525600));
  auto* giftcode = admin.add_subcommand("giftcode", "Gift codes");
  giftcode->require_subcommand(1);
  c.giftcode_redeem = giftcode->add_subcommand("redeem", "Credit a gift code's nominal to a user's balance");
  c.giftcode_redeem->add_option("--code", c.gift_code, "LUM-XXXX-XXXX-XXXX")->required();
  c.giftcode_redeem->add_option("--user", c.user_id)->required();
}

void add_admin(CLI::App& cli, Command& c) {
  c.admin = cli.add_subcommand("admin", "Operator commands");
  c.admin->require_subcommand(1);
  auto* seed = c.admin->add_subcommand("seed-demo", "Seed the demo catalogue (idempotent)");
  seed->add_flag("--skip-voice-features", c.skip_voice_features,
                 "Do not describe the catalogue voices for voice search (admin voices features does it later)");
  auto* voices = c.admin->add_subcommand("voices", "Catalogue voices");
  voices->require_subcommand(1);
  c.voice_features = voices->add_subcommand("features", "Describe every catalogue voice not yet described, for voice search");
  c.voice_features->add_option("--service", c.features_service, "Only the voices of this service");
  add_user_commands(*c.admin, c);
  add_key_commands(*c.admin, c);
  add_billing_commands(*c.admin, c);
  add_reseller_commands(*c.admin, c);
  app::add_catalog_commands(*c.admin, c.catalog);
  c.maintenance = c.admin->add_subcommand("maintenance", "Pause (on) or resume (off) work intake");
  c.maintenance->add_option("state", c.maintenance_state)->required()->check(CLI::IsMember({"on", "off"}));
  auto* billing = c.admin->add_subcommand("billing", "Billing modes");
  billing->require_subcommand(1);
  c.confirm_mode = billing->add_subcommand(
      "confirm-mode", "Require (on) or stop requiring (off) a confirmed quote before a pay-as-you-go top-up");
  c.confirm_mode->add_option("state", c.confirm_state)->required()->check(CLI::IsMember({"on", "off"}));
  auto* service = c.admin->add_subcommand("service", "Voice services");
  service->require_subcommand(1);
  c.service_payg = service->add_subcommand("payg", "Open (on) or close (off) a service to pay-as-you-go");
  c.service_payg->add_option("--service", c.service_code)->required();
  c.service_payg->add_option("state", c.payg_state)->required()->check(CLI::IsMember({"on", "off"}));
  app::add_upstream_commands(*service, c.upstream);
  app::add_webhook_commands(*c.admin, c.webhook);
}

int run(CLI::App& cli, Command& c, Config& config) {
  if (c.serve->parsed()) {
    if (!c.listen.empty()) config.listen = parse_endpoint(c.listen);
    if (!c.admin_listen.empty()) config.admin_listen = parse_endpoint(c.admin_listen);
    log::init(config.log_level);
    return app::serve(config, !c.no_migrate);
  }
  log::init("warn");
  if (cli.got_subcommand("migrate")) return app::migrate(config);
  if (c.admin->got_subcommand("seed-demo")) return app::admin_seed_demo(config, !c.skip_voice_features);
  if (c.voice_features->parsed()) return app::admin_voice_features(config, c.features_service);
  if (c.user_create->parsed()) return app::admin_user_create(config, c.email, c.name, c.locale, c.balance);
  if (c.user_balance->parsed()) return app::admin_user_balance(config, c.user_id, c.add);
  if (c.user_block->parsed()) return app::admin_user_block(config, c.user_id, true);
  if (c.user_unblock->parsed()) return app::admin_user_block(config, c.user_id, false);
  if (c.user_wallet->parsed()) return app::admin_user_wallet(config, c.user_id, c.wallet_state == "on");
  if (c.key_create->parsed()) return app::admin_key_create(config, c.key);
  if (c.key_disable->parsed()) return app::admin_key_disable(config, c.key_id);
  if (c.sub_grant->parsed()) return app::admin_subscription_grant(config, c.user_id, c.plan_code, c.sub_expires);
  if (c.sub_cancel->parsed()) return app::admin_subscription_cancel(config, c.user_id);
  if (c.plan_upsert->parsed()) return app::admin_plan_upsert(config, c.plan);
  if (c.maintenance->parsed()) return app::admin_maintenance(config, c.maintenance_state == "on");
  if (c.confirm_mode->parsed()) return app::admin_billing_confirm_mode(config, c.confirm_state == "on");
  if (c.service_payg->parsed()) return app::admin_service_payg(config, c.service_code, c.payg_state == "on");
  if (c.reseller_enable->parsed()) return app::admin_reseller_enable(config, c.reseller);
  if (c.giftcode_redeem->parsed()) return app::admin_giftcode_redeem(config, c.gift_code, c.user_id);
  if (auto rc = app::run_catalog_command(config, c.catalog)) return *rc;
  if (auto rc = app::run_upstream_command(config, c.upstream)) return *rc;
  if (auto rc = app::run_webhook_command(config, c.webhook)) return *rc;
  return 0;
}

// One line on stderr, whatever the message holds.
int fail(const std::exception& e) {
  std::string what = e.what();
  while (!what.empty() && (what.back() == '\n' || what.back() == ' ')) what.pop_back();
  for (auto& ch : what) {
    if (ch == '\n') ch = ' ';
  }
  std::fprintf(stderr, "error: %s\n", what.c_str());
  return 1;
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App cli{"mediagen: speech, sound effects and music generation service"};
  cli.require_subcommand(1);

  Config config;
  try {
    config = Config::from_process_env();
  } catch (const std::exception& e) {
    std::fprintf(stderr, "error: %s\n", e.what());
    return 2;
  }
  Command command;
  add_serve(cli, command, config);
  add_admin(cli, command);

  try {
    cli.parse(argc, argv);
  } catch (const CLI::CallForHelp& e) {
    return cli.exit(e);
  } catch (const CLI::CallForAllHelp& e) {
    return cli.exit(e);
  } catch (const CLI::ParseError& e) {
    std::fprintf(stderr, "error: %s\n", e.what());
    return e.get_exit_code() == 0 ? 2 : e.get_exit_code();
  }

  try {
    return run(cli, command, config);
  } catch (const db::Unavailable& e) {
    std::fprintf(stderr, "error: cannot connect to PostgreSQL: %s\n", e.what());
    return 1;
  } catch (const std::exception& e) {
    return fail(e);
  }
}
