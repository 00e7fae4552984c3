#include "mediagen/billing/ledger.hpp"

#include <optional>

#include "mediagen/core/uuid.hpp"
#include "mediagen/db/pg.hpp"

namespace mediagen::billing {
namespace {

// One leg: debit the source (refused below zero unless it may go negative; EXTRA narrows when
// it may run), credit the destination (created on first use), and the two entries with the
// balance chain under record TXN, taking the debit and credit rows from FROM_D and FROM_C.
#define MG_LEG_DEBIT(EXTRA)                                                                               \
  " d AS ("                                                                                               \
  "  UPDATE ledger_accounts SET balance = balance - $6, version = version + 1, updated_at = now()"         \
  "  WHERE kind = $1 AND owner = $2 AND asset_id = $5 AND (allow_negative OR balance >= $6)" EXTRA        \
  "  RETURNING id, balance, version),"
#define MG_LEG_CREDIT                                                                                     \
  " c AS ("                                                                                               \
  "  INSERT INTO ledger_accounts (kind, owner, user_id, order_id, asset_id, balance, version)"            \
  "  SELECT $3, $4, NULLIF($7, 0), NULLIF($8, '')::uuid, $5, $6, 1 FROM d"                                \
  "  ON CONFLICT (kind, owner, asset_id) DO UPDATE SET balance = ledger_accounts.balance + EXCLUDED.balance," \
  "   version = ledger_accounts.version + 1, updated_at = now()"                                            \
  "  RETURNING id, balance, version)"
#define MG_LEG_ENTRIES(TXN, FROM_D, FROM_C)                                                               \
  " INSERT INTO ledger_entries (txn_id, account_id, asset_id, amount, prev_balance, new_balance,"          \
  "  account_version, order_id, item_id)"                                                                  \
  " SELECT " TXN ", d.id, $5, -$6::bigint, d.balance + $6, d.balance, d.version, NULLIF($10, '')::uuid,"  \
  "  NULLIF($11, '')::uuid FROM " FROM_D                                                                   \
  " UNION ALL"                                                                                             \
  " SELECT " TXN ", c.id, $5, $6::bigint, c.balance - $6, c.balance, c.version, NULLIF($10, '')::uuid,"   \
  "  NULLIF($11, '')::uuid FROM " FROM_C

// A further leg of an opened record ($9) in one round trip. No row back: the source could not pay.
const db::Statement kLeg{"ledger_leg", "WITH" MG_LEG_DEBIT("") MG_LEG_CREDIT MG_LEG_ENTRIES("$9::bigint", "d", "c")};

// The transaction record and its first leg in one round trip. Its first column is null when
// (kind, reference) was posted before (then nothing moves: the leg's debit requires the new
// record); its second counts the entries written, 2 unless the source could not pay.
const db::Statement kOpenWithLeg{
    "ledger_open_with_leg",
    "WITH t AS ("
    "  INSERT INTO ledger_txns (kind, reference, user_id, order_id, item_id, note)"
    "  VALUES ($9, $12, NULLIF($13, 0), NULLIF($10, '')::uuid, NULLIF($11, '')::uuid, NULLIF($14, ''))"
    "  ON CONFLICT (kind, reference) DO NOTHING RETURNING id)," MG_LEG_DEBIT(" AND EXISTS (SELECT 1 FROM t)")
    MG_LEG_CREDIT ", e AS (" MG_LEG_ENTRIES("t.id", "t, d", "t, c") " RETURNING 1)"
    " SELECT (SELECT id FROM t), (SELECT count(*) FROM e)"};

#undef MG_LEG_DEBIT
#undef MG_LEG_CREDIT
#undef MG_LEG_ENTRIES

const db::Statement kBalance{
    "ledger_balance", "SELECT balance FROM ledger_accounts WHERE kind = $1 AND owner = $2 AND asset_id = $3 FOR UPDATE"};
const db::Statement kDefaultAsset{
    "billing_default_asset", "SELECT id, code, precision FROM currency_assets WHERE is_default AND deleted_at IS NULL"};
const db::Statement kTokenAsset{"billing_token_asset", "SELECT id FROM currency_assets WHERE kind = 'tokens'"};

std::string user_owner(UserId user) { return "user:" + std::to_string(user.value); }

}  // namespace

std::string_view to_string(AccountKind kind) noexcept {
  switch (kind) {
    case AccountKind::wallet: return "wallet";
    case AccountKind::escrow: return "escrow";
    case AccountKind::revenue: return "revenue";
    case AccountKind::funding: return "funding";
    case AccountKind::quota: return "quota";
    case AccountKind::quota_escrow: return "quota_escrow";
    case AccountKind::quota_spent: return "quota_spent";
    case AccountKind::quota_funding: return "quota_funding";
    case AccountKind::reseller: return "reseller";
    case AccountKind::gift_outstanding: return "gift_outstanding";
  }
  return "wallet";
}

Account Account::wallet(UserId user, AssetId asset) {
  return {AccountKind::wallet, user_owner(user), user.value, "", asset};
}
Account Account::quota(UserId user, AssetId tokens) {
  return {AccountKind::quota, user_owner(user), user.value, "", tokens};
}
Account Account::escrow(UserId user, std::string_view order_id, AssetId asset) {
  return {AccountKind::escrow, "order:" + std::string(order_id), user.value, std::string(order_id), asset};
}
Account Account::quota_escrow(UserId user, std::string_view order_id, AssetId tokens) {
  return {AccountKind::quota_escrow, "order:" + std::string(order_id), user.value, std::string(order_id), tokens};
}
Account Account::platform(AccountKind kind, AssetId asset) { return {kind, "platform", 0, "", asset}; }
Account Account::reseller(UserId user, AssetId asset) {
  return {AccountKind::reseller, user_owner(user), user.value, "", asset};
}

Posted post(db::Db& db, db::Tx& tx, const Transfer& t) {
  bool any = false;
  for (const auto& leg : t.legs) {
    if (leg.amount < 0) throw std::invalid_argument("a ledger leg moves a positive amount");
    if (leg.from.asset != leg.to.asset) throw std::invalid_argument("a ledger leg stays within one asset");
    any = any || leg.amount > 0;
  }
  if (!any) return Posted::yes;
  std::optional<std::int64_t> txn;  // the record, opened with the first leg that moves anything
  for (const auto& leg : t.legs) {
    if (leg.amount == 0) continue;
    const std::string from(to_string(leg.from.kind));
    const std::string to(to_string(leg.to.kind));
    if (!txn) {
      const auto row = db.exec(tx, kOpenWithLeg, from, leg.from.owner, to, leg.to.owner, leg.from.asset.value,
                               leg.amount, leg.to.user_id, leg.to.order_id, std::string(t.kind), t.order_id,
                               t.item_id, t.reference, t.user.value, t.note)[0];
      if (row[0].is_null()) return Posted::already;
      if (row[1].as<std::int64_t>() != 2) throw InsufficientBalance();
      txn = row[0].as<std::int64_t>();
      continue;
    }
    auto rows = db.exec(tx, kLeg, from, leg.from.owner, to, leg.to.owner, leg.from.asset.value, leg.amount,
                        leg.to.user_id, leg.to.order_id, *txn, t.order_id, t.item_id);
    if (rows.affected_rows() != 2) throw InsufficientBalance();
  }
  // A wallet's balance is part of its user's profile (GET /user): cached copies go at the commit.
  for (const auto& leg : t.legs) {
    for (const Account* a : {&leg.from, &leg.to}) {
      if (leg.amount > 0 && a->kind == AccountKind::wallet && a->user_id > 0) db.profile_changed(a->user_id);
    }
  }
  return Posted::yes;
}

std::int64_t balance(db::Db& db, db::Tx& tx, const Account& account) {
  auto rows = db.exec(tx, kBalance, std::string(to_string(account.kind)), account.owner, account.asset.value);
  return rows.empty() ? 0 : rows[0][0].as<std::int64_t>();
}

std::vector<CurrencyAsset> seed_currencies(db::Db& db, db::Tx& tx) {
  db.exec_raw(tx, "UPDATE currency_assets SET is_active = true, deleted_at = NULL WHERE is_default");
  std::vector<CurrencyAsset> out;
  for (const auto& row : db.exec_raw(tx, "SELECT id, code, precision FROM currency_assets"
                                         " WHERE deleted_at IS NULL AND kind <> 'tokens' ORDER BY id")) {
    out.push_back({AssetId{row[0].as<std::int64_t>()}, row[1].as<std::string>(), row[2].as<int>()});
  }
  return out;
}

CurrencyAsset default_asset(db::Db& db, db::Tx& tx) {
  auto rows = db.exec(tx, kDefaultAsset);
  if (rows.empty()) throw std::runtime_error("no default currency asset: run the migrations");
  return CurrencyAsset{AssetId{rows[0][0].as<std::int64_t>()}, rows[0][1].as<std::string>(), rows[0][2].as<int>()};
}

AssetId token_asset(db::Db& db, db::Tx& tx) {
  auto rows = db.exec(tx, kTokenAsset);
  if (rows.empty()) throw std::runtime_error("no token asset: run the migrations");
  return AssetId{rows[0][0].as<std::int64_t>()};
}

MinorUnits adjust_wallet(db::Db& db, db::Tx& tx, UserId user, MinorUnits delta, std::string note) {
  const auto asset = default_asset(db, tx).id;
  const auto wallet = Account::wallet(user, asset);
  const auto funding = Account::platform(AccountKind::funding, asset);
  Transfer t{.kind = "admin_adjustment", .reference = random_uuid(), .user = user, .note = std::move(note)};
  if (delta.value > 0) t.legs.push_back({funding, wallet, delta.value});
  if (delta.value < 0) t.legs.push_back({wallet, funding, -delta.value});
  post(db, tx, t);
  return MinorUnits{balance(db, tx, wallet)};
}

}  // namespace mediagen::billing
