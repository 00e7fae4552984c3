#pragma once
// The deliverer's SQL (deliverer.hpp): claim due messages with a lease, fill a message's data,
// record an attempt's outcome where the lease still holds, count what waits.
#include <chrono>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "mediagen/core/clock.hpp"
#include "mediagen/db/db.hpp"

namespace mediagen::webhooks {

struct Claimed {
  std::string id;     // the webhook-id
  std::string lease;  // the claim's token
  std::string url;
  std::string type;
  std::optional<std::string> payload;
  std::string order_id;  // empty for events of no order
  std::string subject_id;
  std::int64_t user_id = 0;
  std::optional<std::int64_t> endpoint_id;  // nullopt: the order's own URL
  int attempt = 1;                          // this attempt's number
  TimePoint created_at;
  // The endpoint's (current first), or the account's; empty: the account has none yet.
  std::vector<std::string> secrets;
  bool active = true;                // the endpoint is enabled, the order's URL not stopped
};

struct ClaimLimits {
  int total = 0;                       // messages to claim at most
  int per_url = 4;                     // in flight here per URL, these included
  const std::map<std::string, int>& in_flight;  // this instance's attempts in flight, per URL
  std::chrono::milliseconds grace{0};  // an order event's data is left to the publisher this long
  std::chrono::milliseconds lease{0};
};

std::vector<Claimed> claim_due(db::Db& db, const ClaimLimits& limits);

// The data of every message of the claimed one's change that still has none; the message's own
// data afterwards (someone else's fill may have come first).
std::optional<std::string> fill_claimed(db::Db& db, const Claimed& message, const std::string& data);

enum class Ending { delivered, retry, failed, gone };

struct Outcome {
  Ending ending = Ending::failed;
  TimePoint at;
  std::optional<int> status_code;
  std::optional<std::string> error;
  std::int64_t duration_ms = 0;
  std::chrono::seconds retry_in{0};  // Ending::retry
};

struct Recorded {
  bool lease_held = true;         // false: the lease ran out and another claim owns the message
  bool endpoint_disabled = false; // this outcome disabled the endpoint
};

Recorded record_outcome(db::Db& db, const Claimed& message, const Outcome& outcome, int failed_in_a_row_to_disable);

// A message of a disabled endpoint or a stopped order URL: failed, with no attempt.
void drop_inactive(db::Db& db, const Claimed& message);

struct Backlog {
  std::int64_t pending = 0;                // messages waiting, on every instance
  std::optional<std::int64_t> next_due_ms; // until the first of them may be claimed; nullopt: none
};
// What waits, and when the first of it comes due (its next attempt, its lease's end, its grace).
Backlog backlog(db::Db& db, std::chrono::milliseconds grace);

}  // namespace mediagen::webhooks
