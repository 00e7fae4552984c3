#pragma once
// Every movement of money is a ledger row written in the caller's transaction, together with
// the balance it moves: balance = sum of the user's ledger entries, always.
#include <stdexcept>
#include <string>
#include <string_view>

#include "mediagen/core/money.hpp"
#include "mediagen/db/pg.hpp"

namespace mediagen::billing {

struct LedgerEntry {
  UserId user;
  AssetId asset;
  MinorUnits amount;      // positive credits, negative debits; never zero
  std::string_view kind;  // "admin_adjustment", "order_lock", ...
  std::string reference;  // the object that caused it
  std::string note;
};

// Thrown when a debit would take the balance below zero; the transaction must roll back.
class InsufficientBalance : public std::runtime_error {
 public:
  InsufficientBalance() : std::runtime_error("insufficient balance") {}
};

// Appends the entry and moves the balance; returns the new balance.
MinorUnits post(db::Db& db, pqxx::work& tx, const LedgerEntry& entry);

CurrencyAsset default_asset(db::Db& db, pqxx::transaction_base& tx);

}  // namespace mediagen::billing
