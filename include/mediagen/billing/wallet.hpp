#pragma once
// What an account sees of its own money (spec 4.6, "Wallet and ledger"): its wallets, one per
// asset, and the ledger transactions that moved them. Both listings exist for an account only
// while its wallet switch (users.wallet_enabled, `mediagen admin user wallet`) is on.
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "mediagen/core/clock.hpp"
#include "mediagen/core/ids.hpp"
#include "mediagen/core/money.hpp"
#include "mediagen/billing/ledger_filter.hpp"
#include "mediagen/db/db.hpp"

namespace mediagen::billing {

// Off for an unknown or deleted user.
bool wallet_enabled(db::Db& db, UserId user);
// The new state; nullopt when no such user.
std::optional<bool> set_wallet_enabled(db::Db& db, UserId user, bool on);

enum class WalletKind { money, quota };
std::string_view to_string(WalletKind kind) noexcept;

struct Wallet {
  WalletKind kind = WalletKind::money;
  CurrencyAsset asset;
  bool is_default = false;  // the platform currency, which orders are paid in
  std::int64_t balance = 0;  // minor units (tokens for quota)
  std::int64_t locked = 0;   // held in open orders' escrow, not part of the balance
};

// Every active money asset (the platform currency first), then the subscription quota in tokens.
std::vector<Wallet> list_wallets(db::Db& db, UserId user);

// One movement of one of the account's own accounts within a transaction.
struct LedgerMovement {
  std::string account;  // wallet, quota, escrow, quota_escrow
  CurrencyAsset asset;
  std::int64_t amount = 0;         // signed: + into the account, - out of it
  std::int64_t balance_after = 0;  // the account's balance after this movement
};

struct LedgerTxn {
  std::int64_t id = 0;
  std::string kind;
  std::optional<std::string> order_id;
  std::optional<std::string> item_id;
  TimePoint created_at;
  std::int64_t wallet_amount = 0;  // the platform-currency wallet's change (minor units)
  std::int64_t quota_amount = 0;   // the quota's change (tokens)
  std::vector<LedgerMovement> movements;
};

struct LedgerPage {
  CurrencyAsset currency;  // the platform currency, in which wallet_amount counts
  std::vector<LedgerTxn> items;
  std::int64_t page = 1;
  std::int64_t per_page = kDefaultLedgerPerPage;
  std::int64_t total = 0;
  std::int64_t last_page() const { return total == 0 ? 1 : (total + per_page - 1) / per_page; }
};

// The account's transactions, newest first (created_at, then id). A page beyond the last is empty.
LedgerPage list_ledger(db::Db& db, UserId user, const LedgerFilter& filter);

}  // namespace mediagen::billing
