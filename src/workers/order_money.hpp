#pragma once
// The money moves of the chunk queue (orders.md "Money"), each one billing::post in the
// caller's transaction. The caller holds the order row lock (taken after the item rows), so
// the escrow balances read here cannot change underneath.
#include <cstdint>
#include <string>
#include <string_view>

#include "mediagen/billing/ledger.hpp"

namespace mediagen::workers::detail {

// The order's side of a money move.
struct OrderAccounts {
  std::string order_id;
  UserId user;
  AssetId money;   // the order's currency asset
  AssetId tokens;  // the token asset (subscription quota)
};

// A completed chunk: escrow -> revenue `minor`, quota escrow -> quota spent `quota_tokens`.
void charge_chunk(db::Db& db, pqxx::work& tx, const OrderAccounts& order, std::string_view item_id,
                  std::int64_t minor, std::int64_t quota_tokens);

// A failed retry's surcharge back: escrow -> wallet `minor`, quota escrow -> quota `quota_tokens`.
void refund_surcharge(db::Db& db, pqxx::work& tx, const OrderAccounts& order, std::string_view item_id,
                      std::int64_t minor, std::int64_t quota_tokens);

// Everything the order's escrows still hold goes back to the wallet and the quota, and every
// item's remaining_locked becomes 0. `reference` is the order id; a second release of one order
// (a completed order stitched again) uses `fallback_reference`.
void release_order(db::Db& db, pqxx::work& tx, const OrderAccounts& order, std::string_view fallback_reference);

}  // namespace mediagen::workers::detail
