#pragma once
// Accounts: the profile of GET /user and the operator's user commands.
#include <optional>
#include <string>

#include <boost/asio/awaitable.hpp>

#include "mediagen/core/clock.hpp"
#include "mediagen/core/ids.hpp"
#include "mediagen/core/message.hpp"
#include "mediagen/core/money.hpp"
#include "mediagen/db/db.hpp"

namespace mediagen::db {
class AsyncPg;
}

namespace mediagen::account {

// The plan of the live subscription, as GET /user shows it.
struct LivePlan {
  std::int64_t subscription_id = 0;
  std::string code;
  std::string name;
  TimePoint expires_at;
};

struct Profile {
  UserId id;
  std::string email;
  std::string name;
  Locale locale = Locale::en;
  bool blocked = false;
  TimePoint created_at;
  TimePoint updated_at;
  MinorUnits balance;
  CurrencyAsset asset;
  std::optional<LivePlan> plan;  // none without a live subscription
};

struct NewUser {
  std::string email;
  std::string name;
  Locale locale = Locale::en;
  MinorUnits initial_balance;
};

// Throws std::invalid_argument for a malformed or already used email.
Profile create_user(db::Db& db, const NewUser& request);
std::optional<Profile> find_profile(db::Db& db, UserId id);
// The same read from the I/O threads (GET /user).
boost::asio::awaitable<std::optional<Profile>> find_profile(db::AsyncPg& reads, UserId id);
// Credits (or, negative, debits) the balance through the ledger; nullopt when no such user.
// Throws billing::InsufficientBalance when a debit would go below zero.
std::optional<Profile> adjust_balance(db::Db& db, UserId id, MinorUnits delta, const std::string& note);
std::optional<Profile> set_blocked(db::Db& db, UserId id, bool blocked);

}  // namespace mediagen::account
