#pragma once
// The filter of GET /ledger-transactions and the ledger kinds it may name; no database here, so
// the query parser that fills it can be fuzzed alone.
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "mediagen/core/clock.hpp"

namespace mediagen::billing {

// The ledger transaction kinds an account can see (see orders/order_money.hpp, subscriptions.hpp):
//   order_lock        an order's estimate locked: wallet -> escrow, quota -> quota escrow
//   item_lock         a retry's surcharge beyond free_length, or a regeneration's price, locked
//   chunk_charge      a completed chunk paid from its order's escrow
//   charge_refund     a completed chunk's charge returned (the order's result could not be built)
//   item_refund       a failed retry's surcharge (or regeneration) returned to the wallet
//   order_release     what an order still held returned on cancel, failure or completion
//   quota_grant       a subscription's tokens for the period
//   quota_expire      tokens an earlier subscription left, lapsed
//   admin_adjustment  an operator's top-up or correction
//   reseller_topup    an operator's top-up of a reseller balance
//   gift_code_issue   a gift code paid from the reseller balance
//   gift_code_cancel  a cancelled gift code's cost back on the reseller balance
//   gift_code_redeem  a gift code's nominal into the redeemer's wallet
inline constexpr std::string_view kLedgerKinds[] = {
    "order_lock",      "item_lock",       "chunk_charge",     "charge_refund",  "item_refund",
    "order_release",   "quota_grant",     "quota_expire",     "admin_adjustment", "reseller_topup",
    "gift_code_issue", "gift_code_cancel", "gift_code_redeem"};
bool is_ledger_kind(std::string_view kind) noexcept;

inline constexpr std::int64_t kDefaultLedgerPerPage = 20;
inline constexpr std::int64_t kMaxLedgerPerPage = 100;

struct LedgerFilter {
  std::int64_t page = 1;
  std::int64_t per_page = kDefaultLedgerPerPage;
  std::vector<std::string> kinds;        // empty: every kind
  std::optional<std::string> order_id;   // a lowercase uuid
  std::optional<TimePoint> from;         // created_at >= from
  std::optional<TimePoint> to;           // created_at < to
};

}  // namespace mediagen::billing
