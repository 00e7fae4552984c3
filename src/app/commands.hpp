#pragma once
// The commands of the `mediagen` binary; main.cpp parses flags and calls one of these.
#include <optional>
#include <string>
#include <vector>

#include "mediagen/core/config.hpp"

namespace mediagen::app {

// Runs the server until SIGTERM or SIGINT; returns the process exit code.
int serve(const Config& config, bool run_migrations);
int migrate(const Config& config);

struct KeyCreateArgs {
  std::int64_t user = 0;
  std::string preset;
  std::string scopes;
  std::string name;
  std::string expires_at;
  std::optional<std::int64_t> rate_per_minute, rate_per_hour, rate_per_day;
  std::optional<std::int64_t> tokens_per_minute, tokens_per_hour, tokens_per_day, tokens_per_month, tokens_quota;
  std::optional<std::int64_t> ai_monthly_limit;
};

// Also describes the catalogue's voices for voice search unless told not to.
int admin_seed_demo(const Config& config, bool voice_features = true);
// Describes the voices not yet described (of one service when `service` is not empty).
int admin_voice_features(const Config& config, const std::string& service);
int admin_user_create(const Config& config, const std::string& email, const std::string& name,
                      const std::string& locale, std::int64_t balance);
int admin_user_balance(const Config& config, std::int64_t user, std::int64_t add);
int admin_user_block(const Config& config, std::int64_t user, bool blocked);
// Switches the account's wallet and ledger listings on or off.
int admin_user_wallet(const Config& config, std::int64_t user, bool on);
int admin_key_create(const Config& config, const KeyCreateArgs& args);
int admin_key_disable(const Config& config, std::int64_t id);
int admin_subscription_grant(const Config& config, std::int64_t user, const std::string& plan,
                             const std::string& expires_at);
int admin_subscription_cancel(const Config& config, std::int64_t user);

// `admin plan upsert`: an option left out keeps the plan's value (a new plan needs --name and
// --tokens); --service (repeatable, KEY or KEY=TOKENS) replaces the services it entitles.
struct PlanArgs {
  std::string code;
  std::optional<std::string> name;
  std::optional<std::int64_t> tokens, price;
  std::optional<int> period_days, slots, clone_limit, clone_limit_provider_d;
  std::vector<std::string> services;
  bool no_services = false;  // entitle no service: every order is paid from the balance
};
int admin_plan_upsert(const Config& config, const PlanArgs& args);
int admin_maintenance(const Config& config, bool on);
int admin_billing_confirm_mode(const Config& config, bool on);
// Opens or closes a service to pay-as-you-go; closed, its clones need a live subscription.
int admin_service_payg(const Config& config, const std::string& service, bool on);

// `admin reseller enable`: an option left out keeps the profile's value (the default for a new
// one); --balance adds to the reseller balance from the platform's funding.
struct ResellerEnableArgs {
  std::int64_t user = 0;
  std::optional<std::int64_t> balance, discount_bps, cancel_window_minutes;
};
int admin_reseller_enable(const Config& config, const ResellerEnableArgs& args);
// `admin giftcode redeem`: the code's nominal into the user's wallet, exactly once.
int admin_giftcode_redeem(const Config& config, const std::string& code, std::int64_t user);

}  // namespace mediagen::app
