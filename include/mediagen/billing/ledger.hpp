#pragma once
// The ledger: every movement of money or quota is one transaction of balanced entries, written
// in the caller's database transaction together with the state change that causes it.
//
// Accounts (migrations/0003): a user's `wallet` (money) and `quota` (subscription tokens); an
// order's `escrow` and `quota_escrow` (what it holds locked); the platform's `revenue` and
// `quota_spent` (what completed work consumed) and `funding` and `quota_funding` (where top-ups
// and grants come from, the only accounts allowed below zero).
// Resellers (migrations/0016): a reseller's `reseller` balance (what gift codes are paid from) and
// the platform's `gift_outstanding` (the nominal of every gift code not yet redeemed or cancelled).
//
// A transfer is identified by (kind, reference): posting it twice posts nothing the second
// time, which is what makes chunk charges exactly-once.
#include <cstdint>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include "mediagen/core/ids.hpp"
#include "mediagen/core/money.hpp"
#include "mediagen/db/db.hpp"

namespace mediagen::billing {

enum class AccountKind {
  wallet, escrow, revenue, funding, quota, quota_escrow, quota_spent, quota_funding, reseller, gift_outstanding
};
std::string_view to_string(AccountKind kind) noexcept;

struct Account {
  AccountKind kind;
  std::string owner;  // "user:12", "order:<uuid>", "platform"
  std::int64_t user_id = 0;   // 0: none
  std::string order_id;       // "": none
  AssetId asset;

  static Account wallet(UserId user, AssetId asset);
  static Account quota(UserId user, AssetId tokens);
  static Account escrow(UserId user, std::string_view order_id, AssetId asset);
  static Account quota_escrow(UserId user, std::string_view order_id, AssetId tokens);
  static Account platform(AccountKind kind, AssetId asset);
  static Account reseller(UserId user, AssetId asset);
};

// One leg moves `amount` (> 0; zero legs are skipped) from one account to another of the same
// asset. The source must not go below zero unless it is a funding account.
struct Leg {
  Account from;
  Account to;
  std::int64_t amount = 0;
};

struct Transfer {
  std::string_view kind;    // "order_lock", "chunk_charge", "order_release", ...
  std::string reference;    // unique per kind
  UserId user{};            // 0: none
  std::string order_id;     // "": none
  std::string item_id;      // "": none
  std::string note;
  std::vector<Leg> legs;
};

// Thrown when a leg would take a non-negative account below zero; roll the transaction back.
class InsufficientBalance : public std::runtime_error {
 public:
  InsufficientBalance() : std::runtime_error("insufficient balance") {}
};

enum class Posted { yes, already };

// Posts every leg (nothing at all when (kind, reference) was posted before: Posted::already).
// A transfer whose legs are all zero posts nothing and returns Posted::yes.
Posted post(db::Db& db, db::Tx& tx, const Transfer& transfer);

// The balance of an account (0 when it has never been used), locking its row until the
// transaction ends so that what is read is what a following leg moves.
std::int64_t balance(db::Db& db, db::Tx& tx, const Account& account);

CurrencyAsset default_asset(db::Db& db, db::Tx& tx);
// Seeding: the platform currency (created by the first migration) is made active; returns every
// currency asset that is not deleted, in creation order.
std::vector<CurrencyAsset> seed_currencies(db::Db& db, db::Tx& tx);
AssetId token_asset(db::Db& db, db::Tx& tx);

// An operator's adjustment of a wallet (funding <-> wallet), e.g. a top-up; returns the new
// balance. Throws InsufficientBalance when a negative delta exceeds the balance.
MinorUnits adjust_wallet(db::Db& db, db::Tx& tx, UserId user, MinorUnits delta, std::string note);

}  // namespace mediagen::billing
