#include "order_money.hpp"

namespace mediagen::workers::detail {
namespace {

using billing::Account;
using billing::AccountKind;

const db::Statement kClearItemLocks{
    "workers_clear_item_locks",
    "UPDATE order_items SET remaining_locked = 0, updated_at = now()"
    " WHERE order_id = $1::uuid AND remaining_locked <> 0"};

}  // namespace

void charge_chunk(db::Db& db, pqxx::work& tx, const OrderAccounts& order, std::string_view item_id,
                  std::int64_t minor, std::int64_t quota_tokens) {
  billing::Transfer t{.kind = "chunk_charge",
                      .reference = std::string(item_id),
                      .user = order.user,
                      .order_id = order.order_id,
                      .item_id = std::string(item_id)};
  t.legs.push_back({Account::escrow(order.user, order.order_id, order.money),
                    Account::platform(AccountKind::revenue, order.money), minor});
  t.legs.push_back({Account::quota_escrow(order.user, order.order_id, order.tokens),
                    Account::platform(AccountKind::quota_spent, order.tokens), quota_tokens});
  billing::post(db, tx, t);
}

void refund_surcharge(db::Db& db, pqxx::work& tx, const OrderAccounts& order, std::string_view item_id,
                      std::int64_t minor, std::int64_t quota_tokens) {
  billing::Transfer t{.kind = "surcharge_refund",
                      .reference = std::string(item_id),
                      .user = order.user,
                      .order_id = order.order_id,
                      .item_id = std::string(item_id)};
  t.legs.push_back({Account::escrow(order.user, order.order_id, order.money), Account::wallet(order.user, order.money),
                    minor});
  t.legs.push_back({Account::quota_escrow(order.user, order.order_id, order.tokens),
                    Account::quota(order.user, order.tokens), quota_tokens});
  billing::post(db, tx, t);
}

void release_order(db::Db& db, pqxx::work& tx, const OrderAccounts& order, std::string_view fallback_reference) {
  const auto escrow = Account::escrow(order.user, order.order_id, order.money);
  const auto quota_escrow = Account::quota_escrow(order.user, order.order_id, order.tokens);
  billing::Transfer t{.kind = "order_release", .reference = order.order_id, .user = order.user,
                      .order_id = order.order_id};
  t.legs.push_back({escrow, Account::wallet(order.user, order.money), billing::balance(db, tx, escrow)});
  t.legs.push_back({quota_escrow, Account::quota(order.user, order.tokens), billing::balance(db, tx, quota_escrow)});
  if (billing::post(db, tx, t) == billing::Posted::already) {
    t.reference = std::string(fallback_reference);
    billing::post(db, tx, t);
  }
  db.exec(tx, kClearItemLocks, order.order_id);
}

}  // namespace mediagen::workers::detail
