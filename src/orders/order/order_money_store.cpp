#include "mediagen/orders/order.hpp"
#include "mediagen/db/pg.hpp"

namespace mediagen::orders {
namespace {

using billing::Account;
using billing::AccountKind;

const db::Statement kClearLocks{
    "orders_clear_locks",
    "UPDATE order_items SET remaining_locked = 0, updated_at = now() WHERE order_id = $1 AND remaining_locked <> 0"};

billing::Transfer transfer(std::string_view kind, std::string reference, const OrderAccounts& o,
                           std::string_view item_id) {
  return billing::Transfer{.kind = kind,
                           .reference = std::move(reference),
                           .user = o.user,
                           .order_id = o.order_id,
                           .item_id = std::string(item_id)};
}

// Quota first, then money: the lock order of the header.
void user_to_order(billing::Transfer& t, const OrderAccounts& o, Amounts a) {
  t.legs.push_back({Account::quota(o.user, o.tokens), Account::quota_escrow(o.user, o.order_id, o.tokens), a.quota_tokens});
  t.legs.push_back({Account::wallet(o.user, o.money), Account::escrow(o.user, o.order_id, o.money), a.minor});
}

void order_to_user(billing::Transfer& t, const OrderAccounts& o, Amounts a) {
  t.legs.push_back({Account::quota_escrow(o.user, o.order_id, o.tokens), Account::quota(o.user, o.tokens), a.quota_tokens});
  t.legs.push_back({Account::escrow(o.user, o.order_id, o.money), Account::wallet(o.user, o.money), a.minor});
}

}  // namespace

void lock_order(db::Db& db, db::Tx& tx, const OrderAccounts& o, Amounts a) {
  auto t = transfer("order_lock", o.order_id, o, "");
  user_to_order(t, o, a);
  billing::post(db, tx, t);
}

void lock_item(db::Db& db, db::Tx& tx, const OrderAccounts& o, std::string_view item_id, Amounts a) {
  auto t = transfer("item_lock", std::string(item_id), o, item_id);
  user_to_order(t, o, a);
  billing::post(db, tx, t);
}

billing::Posted charge_item(db::Db& db, db::Tx& tx, const OrderAccounts& o, std::string_view item_id, Amounts a) {
  auto t = transfer("chunk_charge", std::string(item_id), o, item_id);
  t.legs.push_back({Account::quota_escrow(o.user, o.order_id, o.tokens),
                    Account::platform(AccountKind::quota_spent, o.tokens), a.quota_tokens});
  t.legs.push_back({Account::escrow(o.user, o.order_id, o.money), Account::platform(AccountKind::revenue, o.money),
                    a.minor});
  return billing::post(db, tx, t);
}

void refund_charge(db::Db& db, db::Tx& tx, const OrderAccounts& o, std::string_view item_id, Amounts a) {
  auto t = transfer("charge_refund", std::string(item_id), o, item_id);
  t.legs.push_back({Account::platform(AccountKind::quota_spent, o.tokens), Account::quota(o.user, o.tokens), a.quota_tokens});
  t.legs.push_back({Account::platform(AccountKind::revenue, o.money), Account::wallet(o.user, o.money), a.minor});
  billing::post(db, tx, t);
}

void refund_item(db::Db& db, db::Tx& tx, const OrderAccounts& o, std::string_view item_id, Amounts a) {
  auto t = transfer("item_refund", std::string(item_id), o, item_id);
  order_to_user(t, o, a);
  billing::post(db, tx, t);
}

Amounts release_order(db::Db& db, db::Tx& tx, const OrderAccounts& o, std::string_view again_reference) {
  Amounts left{
      .quota_tokens = billing::balance(db, tx, Account::quota_escrow(o.user, o.order_id, o.tokens)),
      .minor = billing::balance(db, tx, Account::escrow(o.user, o.order_id, o.money)),
  };
  auto t = transfer("order_release", o.order_id, o, "");
  order_to_user(t, o, left);
  if (billing::post(db, tx, t) == billing::Posted::already && !again_reference.empty()) {
    t.reference = std::string(again_reference);
    billing::post(db, tx, t);
  }
  db.exec(tx, kClearLocks, o.order_id);
  return left;
}

}  // namespace mediagen::orders
