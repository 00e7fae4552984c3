#pragma once
// What a customer sees of their subscription (spec 2.9, 4.6): the records of GET /usage, one per
// limit of the live plan, and the account's subscriptions.
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "mediagen/core/clock.hpp"
#include "mediagen/core/ids.hpp"
#include "mediagen/core/message.hpp"
#include "mediagen/db/db.hpp"

namespace mediagen::billing {

// A periodic quota resets at `reset_at`; concurrent task slots free up as orders finish.
enum class LimitType { quota, concurrency };
std::string_view to_string(LimitType type) noexcept;

struct UsageRecord {
  std::int64_t limit_id = 0;
  std::optional<std::int64_t> service_id;
  std::optional<std::string> service_code;
  std::optional<std::string> service_name;  // in the caller's locale
  std::optional<std::int64_t> entitlement_id;
  std::optional<std::string> entitlement_code;
  std::optional<std::string> entitlement_name;
  LimitType type = LimitType::quota;
  std::string_view unit;                 // "tokens" or "tasks"
  std::int64_t consumed = 0;
  std::optional<std::int64_t> ceiling;   // none: no ceiling of its own
  std::optional<TimePoint> reset_at;     // quotas only
};

// The live subscription's records: the shared token quota, the concurrency slots (when the plan
// has them), then each entitled service in catalogue order. Empty without a live subscription.
std::vector<UsageRecord> read_usage(db::Db& db, UserId user, Locale locale);

// A service as GET /usage/{service} tells it: whether the live plan entitles it, whether it is
// open to pay-as-you-go, and the records that bound an order on it.
struct ServiceUsage {
  std::int64_t service_id = 0;
  std::string service_code;
  std::string service_name;
  bool entitled = false;
  bool payg_enabled = true;
  std::vector<UsageRecord> records;
};
// nullopt for a service code that does not exist.
std::optional<ServiceUsage> read_service_usage(db::Db& db, UserId user, const std::string& service, Locale locale);

enum class SubscriptionStatus { active, scheduled, cancelled, expired };
std::string_view to_string(SubscriptionStatus status) noexcept;

struct SubscriptionView {
  std::int64_t id = 0;
  std::string plan_code;
  std::string plan_name;
  SubscriptionStatus status = SubscriptionStatus::active;
  TimePoint starts_at;
  TimePoint expires_at;
  std::optional<TimePoint> cancelled_at;
  std::int64_t tokens_per_period = 0;
  std::optional<std::int64_t> concurrency_slots;
  std::vector<std::string> services;  // the service codes the plan entitles
};

// Newest first, at most `limit`.
std::vector<SubscriptionView> list_subscriptions(db::Db& db, UserId user, std::size_t limit);

}  // namespace mediagen::billing
