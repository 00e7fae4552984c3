#include <CLI/CLI.hpp>
#include <cstdio>

#include "commands.hpp"
#include "mediagen/core/log.hpp"
#include "mediagen/db/connection.hpp"

using namespace mediagen;

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

  auto* serve = cli.add_subcommand("serve", "Serve the public API and the operator listener");
  bool no_migrate = false;
  std::string listen, admin_listen;
  serve->add_flag("--no-migrate", no_migrate, "Do not apply pending migrations at start");
  serve->add_option("--listen", listen, "Public listener host:port (MEDIAGEN_LISTEN)");
  serve->add_option("--admin-listen", admin_listen, "Operator listener host:port (MEDIAGEN_ADMIN_LISTEN)");
  serve->add_option("--io-threads", config.io_threads, "I/O threads (MEDIAGEN_IO_THREADS)")->check(CLI::Range(1, 64));

  cli.add_subcommand("migrate", "Apply pending database migrations");

  auto* admin = cli.add_subcommand("admin", "Operator commands");
  admin->require_subcommand(1);
  admin->add_subcommand("seed-demo", "Seed the demo catalogue (idempotent)");

  auto* user = admin->add_subcommand("user", "Users");
  user->require_subcommand(1);
  std::string email, name, locale = "en";
  std::int64_t balance = 0, user_id = 0, add = 0;
  auto* user_create = user->add_subcommand("create", "Create a user");
  user_create->add_option("--email", email)->required();
  user_create->add_option("--name", name);
  user_create->add_option("--locale", locale)->check(CLI::IsMember({"en", "ru"}));
  user_create->add_option("--balance", balance, "Initial balance in minor units")->check(CLI::NonNegativeNumber);
  auto* user_balance = user->add_subcommand("balance", "Add to (or, negative, take from) a balance");
  user_balance->add_option("--user", user_id)->required();
  user_balance->add_option("--add", add, "Minor units")->required();
  auto* user_block = user->add_subcommand("block", "Block a user: every key of theirs stops working");
  user_block->add_option("--user", user_id)->required();
  auto* user_unblock = user->add_subcommand("unblock", "Unblock a user");
  user_unblock->add_option("--user", user_id)->required();

  auto* key = admin->add_subcommand("key", "API keys");
  key->require_subcommand(1);
  app::KeyCreateArgs k;
  auto* key_create = key->add_subcommand("create", "Create an API key; prints the key once");
  key_create->add_option("--user", k.user)->required();
  key_create->add_option("--preset", k.preset)->check(CLI::IsMember({"read_only", "automation", "full"}));
  key_create->add_option("--scopes", k.scopes, "Comma-separated scopes, '*' for the wildcard");
  key_create->add_option("--name", k.name);
  key_create->add_option("--expires-at", k.expires_at, "ISO 8601");
  key_create->add_option("--rate-per-minute", k.rate_per_minute);
  key_create->add_option("--rate-per-hour", k.rate_per_hour);
  key_create->add_option("--rate-per-day", k.rate_per_day);
  key_create->add_option("--tokens-per-minute", k.tokens_per_minute);
  key_create->add_option("--tokens-per-hour", k.tokens_per_hour);
  key_create->add_option("--tokens-per-day", k.tokens_per_day);
  key_create->add_option("--tokens-per-month", k.tokens_per_month);
  key_create->add_option("--tokens-quota", k.tokens_quota);
  key_create->add_option("--ai-monthly-limit", k.ai_monthly_limit, "Minor units");
  std::int64_t key_id = 0;
  auto* key_disable = key->add_subcommand("disable", "Disable a key");
  key_disable->add_option("--id", key_id)->required();

  auto* subscription = admin->add_subcommand("subscription", "Subscriptions");
  subscription->require_subcommand(1);
  std::string plan_code, sub_expires;
  auto* sub_grant = subscription->add_subcommand("grant", "Start a subscription to a plan now");
  sub_grant->add_option("--user", user_id)->required();
  sub_grant->add_option("--plan", plan_code)->required();
  sub_grant->add_option("--expires-at", sub_expires, "ISO 8601; default one plan period from now");

  std::string maintenance_state;
  auto* maintenance = admin->add_subcommand("maintenance", "Pause (on) or resume (off) work intake");
  maintenance->add_option("state", maintenance_state)->required()->check(CLI::IsMember({"on", "off"}));

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
    if (serve->parsed()) {
      if (!listen.empty()) config.listen = parse_endpoint(listen);
      if (!admin_listen.empty()) config.admin_listen = parse_endpoint(admin_listen);
      log::init(config.log_level);
      return app::serve(config, !no_migrate);
    }
    log::init("warn");
    if (cli.got_subcommand("migrate")) return app::migrate(config);
    if (admin->got_subcommand("seed-demo")) return app::admin_seed_demo(config);
    if (user_create->parsed()) return app::admin_user_create(config, email, name, locale, balance);
    if (user_balance->parsed()) return app::admin_user_balance(config, user_id, add);
    if (user_block->parsed()) return app::admin_user_block(config, user_id, true);
    if (user_unblock->parsed()) return app::admin_user_block(config, user_id, false);
    if (key_create->parsed()) return app::admin_key_create(config, k);
    if (key_disable->parsed()) return app::admin_key_disable(config, key_id);
    if (sub_grant->parsed()) return app::admin_subscription_grant(config, user_id, plan_code, sub_expires);
    if (maintenance->parsed()) return app::admin_maintenance(config, maintenance_state == "on");
  } catch (const db::Unavailable& e) {
    std::fprintf(stderr, "error: cannot connect to PostgreSQL: %s\n", e.what());
    return 1;
  } catch (const std::exception& e) {
    std::string what = e.what();
    while (!what.empty() && (what.back() == '\n' || what.back() == ' ')) what.pop_back();
    for (auto& c : what) {
      if (c == '\n') c = ' ';
    }
    std::fprintf(stderr, "error: %s\n", what.c_str());
    return 1;
  }
  return 0;
}
