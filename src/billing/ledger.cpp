#include "mediagen/billing/ledger.hpp"

namespace mediagen::billing {
namespace {

const db::Statement kEnsureBalance{
    "billing_ensure_balance",
    "INSERT INTO balances (user_id, asset_id) VALUES ($1, $2) ON CONFLICT DO NOTHING"};
const db::Statement kMoveBalance{
    "billing_move_balance",
    "UPDATE balances SET amount_minor = amount_minor + $3, updated_at = now()"
    " WHERE user_id = $1 AND asset_id = $2 AND amount_minor + $3 >= 0 RETURNING amount_minor"};
const db::Statement kAppend{
    "billing_append_entry",
    "INSERT INTO ledger_entries (user_id, asset_id, amount_minor, kind, reference, note)"
    " VALUES ($1, $2, $3, $4, NULLIF($5, ''), NULLIF($6, ''))"};
const db::Statement kDefaultAsset{
    "billing_default_asset", "SELECT id, code, precision FROM currency_assets WHERE is_default AND deleted_at IS NULL"};

}  // namespace

MinorUnits post(db::Db& db, pqxx::work& tx, const LedgerEntry& e) {
  if (e.amount.value == 0) throw std::invalid_argument("a ledger entry moves a non-zero amount");
  db.exec(tx, kEnsureBalance, e.user.value, e.asset.value);
  auto rows = db.exec(tx, kMoveBalance, e.user.value, e.asset.value, e.amount.value);
  if (rows.empty()) throw InsufficientBalance();
  db.exec(tx, kAppend, e.user.value, e.asset.value, e.amount.value, std::string(e.kind), e.reference, e.note);
  return MinorUnits{rows[0][0].as<std::int64_t>()};
}

CurrencyAsset default_asset(db::Db& db, pqxx::transaction_base& tx) {
  auto rows = db.exec(tx, kDefaultAsset);
  if (rows.empty()) throw std::runtime_error("no default currency asset: run the migrations");
  return CurrencyAsset{AssetId{rows[0][0].as<std::int64_t>()}, rows[0][1].as<std::string>(), rows[0][2].as<int>()};
}

}  // namespace mediagen::billing
