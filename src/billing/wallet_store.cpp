// SQL of the wallet switch and the account's wallet and ledger listings.
#include "mediagen/billing/wallet.hpp"

#include <chrono>

#include "mediagen/billing/ledger.hpp"
#include "mediagen/db/fields.hpp"
#include "mediagen/db/pg.hpp"

namespace mediagen::billing {
namespace {

const db::Statement kEnabled{"wallet_enabled",
                             "SELECT wallet_enabled FROM users WHERE id = $1 AND deleted_at IS NULL"};
const db::Statement kSetEnabled{
    "wallet_set_enabled",
    "UPDATE users SET wallet_enabled = $2, updated_at = now() WHERE id = $1 AND deleted_at IS NULL"
    " RETURNING wallet_enabled"};

// Money assets that are active (or that the account holds), then the token asset as the quota.
// What is locked is the sum over the account's order escrows of the asset (ledger_accounts_user).
const db::Statement kWallets{
    "wallet_list",
    "SELECT c.id, c.code, c.precision, c.kind = 'tokens', c.is_default, COALESCE(w.balance, 0),"
    " COALESCE((SELECT sum(e.balance) FROM ledger_accounts e WHERE e.user_id = $1::bigint AND e.asset_id = c.id"
    "  AND e.kind IN ('escrow', 'quota_escrow')), 0)::bigint"
    " FROM currency_assets c"
    " LEFT JOIN ledger_accounts w ON w.owner = 'user:' || $1::bigint::text AND w.asset_id = c.id"
    "  AND w.kind = CASE WHEN c.kind = 'tokens' THEN 'quota' ELSE 'wallet' END"
    " WHERE c.deleted_at IS NULL AND (c.is_active OR c.kind = 'tokens' OR w.balance <> 0)"
    " ORDER BY c.kind = 'tokens', c.is_default DESC, c.id"};

// NULL parameters do not filter. Times are epoch microseconds.
#define MG_LEDGER_MATCH                                                                                   \
  " FROM ledger_txns t WHERE t.user_id = $1 AND ($2::text[] IS NULL OR t.kind = ANY ($2::text[]))"       \
  " AND ($3::uuid IS NULL OR t.order_id = $3::uuid)"                                                    \
  " AND ($4::bigint IS NULL OR t.created_at >= 'epoch'::timestamptz + $4::bigint * interval '1 microsecond')" \
  " AND ($5::bigint IS NULL OR t.created_at < 'epoch'::timestamptz + $5::bigint * interval '1 microsecond')"

const db::Statement kCount{"wallet_ledger_count", "SELECT count(*)" MG_LEDGER_MATCH};

// The page's transactions (ledger_txns_user_time gives the order), each with its movements on
// the account's own accounts (platform legs are not the account's business): one row per
// movement, in the order they were posted.
const db::Statement kPage{
    "wallet_ledger_page",
    "WITH p AS (SELECT t.id, t.kind, t.order_id, t.item_id, t.created_at" MG_LEDGER_MATCH
    " ORDER BY t.created_at DESC, t.id DESC LIMIT $6 OFFSET $7)"
    " SELECT p.id, p.kind, p.order_id::text, p.item_id::text, (extract(epoch from p.created_at) * 1000000)::bigint,"
    " m.kind, m.asset_id, c.code, c.precision, m.amount, m.new_balance"
    " FROM p LEFT JOIN LATERAL (SELECT a.kind, e.asset_id, e.amount, e.new_balance, e.id FROM ledger_entries e"
    "  JOIN ledger_accounts a ON a.id = e.account_id WHERE e.txn_id = p.id AND a.user_id = $1) m ON true"
    " LEFT JOIN currency_assets c ON c.id = m.asset_id"
    " ORDER BY p.created_at DESC, p.id DESC, m.id"};

std::optional<std::int64_t> micros(const std::optional<TimePoint>& t) {
  if (!t) return std::nullopt;
  return std::chrono::duration_cast<std::chrono::microseconds>(t->time_since_epoch()).count();
}

void add_movement(LedgerTxn& txn, const pqxx::row& r, AssetId platform_currency) {
  if (r[5].is_null()) return;
  LedgerMovement m;
  m.account = r[5].as<std::string>();
  m.asset = CurrencyAsset{AssetId{r[6].as<std::int64_t>()}, r[7].as<std::string>(), r[8].as<int>()};
  m.amount = r[9].as<std::int64_t>();
  m.balance_after = r[10].as<std::int64_t>();
  if (m.account == "wallet" && m.asset.id == platform_currency) txn.wallet_amount += m.amount;
  if (m.account == "quota") txn.quota_amount += m.amount;
  txn.movements.push_back(std::move(m));
}

}  // namespace

std::string_view to_string(WalletKind kind) noexcept { return kind == WalletKind::quota ? "quota" : "money"; }

bool wallet_enabled(db::Db& db, UserId user) {
  return db::read(db, [&](db::Tx& tx) {
    auto rows = db.exec(tx, kEnabled, user.value);
    return !rows.empty() && rows[0][0].as<bool>();
  });
}

std::optional<bool> set_wallet_enabled(db::Db& db, UserId user, bool on) {
  return db::transact(db, [&](db::Tx& tx) -> std::optional<bool> {
    auto rows = db.exec(tx, kSetEnabled, user.value, on);
    if (rows.empty()) return std::nullopt;
    db.profile_changed(user.value);  // its updated_at
    return rows[0][0].as<bool>();
  });
}

std::vector<Wallet> list_wallets(db::Db& db, UserId user) {
  return db::read(db, [&](db::Tx& tx) {
    std::vector<Wallet> out;
    for (const auto& r : db.exec(tx, kWallets, user.value)) {
      Wallet w;
      w.asset = CurrencyAsset{AssetId{r[0].as<std::int64_t>()}, r[1].as<std::string>(), r[2].as<int>()};
      w.kind = r[3].as<bool>() ? WalletKind::quota : WalletKind::money;
      w.is_default = r[4].as<bool>();
      w.balance = r[5].as<std::int64_t>();
      w.locked = r[6].as<std::int64_t>();
      out.push_back(std::move(w));
    }
    return out;
  });
}

LedgerPage list_ledger(db::Db& db, UserId user, const LedgerFilter& filter) {
  LedgerPage out;
  out.page = filter.page;
  out.per_page = filter.per_page;
  const std::optional<std::string> kinds =
      filter.kinds.empty() ? std::nullopt : std::optional<std::string>(db::text_array(filter.kinds));
  const auto from = micros(filter.from);
  const auto to = micros(filter.to);
  db::transact(db, [&](db::Tx& tx) {
    out.currency = default_asset(db, tx);
    out.total = db.exec(tx, kCount, user.value, kinds, filter.order_id, from, to)[0][0].as<std::int64_t>();
    // Beyond the last page: an empty page (the offset is never computed, so it cannot overflow).
    if (out.total == 0 || filter.page - 1 >= out.last_page()) return;
    const std::int64_t offset = (filter.page - 1) * filter.per_page;
    for (const auto& r : db.exec(tx, kPage, user.value, kinds, filter.order_id, from, to, filter.per_page, offset)) {
      const auto id = r[0].as<std::int64_t>();
      if (out.items.empty() || out.items.back().id != id) {
        LedgerTxn txn;
        txn.id = id;
        txn.kind = r[1].as<std::string>();
        txn.order_id = db::optional_of<std::string>(r[2]);
        txn.item_id = db::optional_of<std::string>(r[3]);
        txn.created_at = db::time_from_micros(r[4]);
        out.items.push_back(std::move(txn));
      }
      add_movement(out.items.back(), r, out.currency.id);
    }
  });
  return out;
}

}  // namespace mediagen::billing
