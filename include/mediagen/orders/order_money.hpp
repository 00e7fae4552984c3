#pragma once
// The money of one order, as ledger transfers (see migrations/0003 and billing/ledger.hpp).
// Every function runs inside the caller's transaction, next to the state change it belongs to.
//
// Lock order: quota legs are always posted before money legs, in every transfer, so two
// transactions of one user never wait for each other's account rows in opposite orders.
#include <cstdint>
#include <string>
#include <string_view>

#include "mediagen/billing/ledger.hpp"
#include "mediagen/core/ids.hpp"
#include "mediagen/db/db.hpp"

namespace mediagen::orders {

struct OrderAccounts {
  UserId user;
  std::string order_id;
  AssetId money;   // the platform currency
  AssetId tokens;  // subscription quota
};

// What a lock, a charge or a refund moves: tokens of quota and minor units of money.
struct Amounts {
  std::int64_t quota_tokens = 0;
  std::int64_t minor = 0;
};

// The order's estimate: quota -> quota escrow, wallet -> escrow ("order_lock", ref order id).
// Throws billing::InsufficientBalance when either source cannot pay.
void lock_order(db::Db& db, db::Tx& tx, const OrderAccounts& order, Amounts amounts);

// A surcharge or regeneration lock of one item ("item_lock", ref item id).
void lock_item(db::Db& db, db::Tx& tx, const OrderAccounts& order, std::string_view item_id, Amounts amounts);

// A completed item's price: escrow -> revenue, quota escrow -> quota spent ("chunk_charge",
// ref item id). Posting it again for the same item posts nothing (Posted::already).
billing::Posted charge_item(db::Db& db, db::Tx& tx, const OrderAccounts& order, std::string_view item_id,
                            Amounts amounts);

// A completed item's charge given back when the order's result can never be built:
// revenue -> wallet, quota spent -> quota ("charge_refund", ref item id); at most once per item.
void refund_charge(db::Db& db, db::Tx& tx, const OrderAccounts& order, std::string_view item_id, Amounts amounts);

// A failed item's surcharge (or a failed regeneration's lock) back to the user
// ("item_refund", ref item id).
void refund_item(db::Db& db, db::Tx& tx, const OrderAccounts& order, std::string_view item_id, Amounts amounts);

// Everything the order still holds back to the user ("order_release", ref order id), and every
// item's remaining_locked to 0. Returns what was released. An order can be released more than
// once (a completed order stitched again after a regeneration): a later release is posted
// under `again_reference` (e.g. "<order id>:<stitch token>"), which must then be unique.
Amounts release_order(db::Db& db, db::Tx& tx, const OrderAccounts& order, std::string_view again_reference = {});

}  // namespace mediagen::orders
