#include <gtest/gtest.h>

#include "mediagen/account/users.hpp"
#include "mediagen/billing/ledger.hpp"
#include "mediagen/db/pg.hpp"
#include "support.hpp"

namespace mediagen::test {
namespace {

class AccountTest : public MigratedTest {
 protected:
  void SetUp() override {
    MigratedTest::SetUp();
    if (HasFatalFailure()) return;
    db.emplace(db_url, &counters);
  }
  void TearDown() override {
    db.reset();
    MigratedTest::TearDown();
  }
  std::string ledger_of(UserId id) {
    return query_value(db_url, "SELECT count(*) || ':' || COALESCE(sum(e.amount), 0) FROM ledger_entries e"
                               " JOIN ledger_accounts a ON a.id = e.account_id AND a.kind = 'wallet' WHERE a.user_id = " +
                                   std::to_string(id.value));
  }
  std::optional<db::Db> db;
};

TEST_F(AccountTest, CreatesAUserWithAnEmptyBalanceInTheDefaultCurrency) {
  const auto before = std::chrono::system_clock::now() - std::chrono::seconds(5);
  const auto p = account::create_user(*db, {"Carol@Example.com", "Carol", Locale::ru, {}});
  EXPECT_GT(p.id.value, 0);
  EXPECT_EQ(p.email, "Carol@Example.com");
  EXPECT_EQ(p.name, "Carol");
  EXPECT_EQ(p.locale, Locale::ru);
  EXPECT_FALSE(p.blocked);
  EXPECT_EQ(p.balance.value, 0);
  EXPECT_EQ(p.asset.code, "USD");
  EXPECT_EQ(p.asset.precision, 2);
  EXPECT_GE(p.created_at, before);
  EXPECT_EQ(ledger_of(p.id), "0:0");
}

TEST_F(AccountTest, CreatesAUserWithAnInitialBalanceThroughTheLedger) {
  const auto p = account::create_user(*db, {"dave@example.com", "", Locale::en, MinorUnits{150000}});
  EXPECT_EQ(p.balance.value, 150000);
  EXPECT_EQ(ledger_of(p.id), "1:150000");
  EXPECT_EQ(query_value(db_url, "SELECT kind FROM ledger_txns WHERE user_id = " + std::to_string(p.id.value)),
            "admin_adjustment");
}

TEST_F(AccountTest, RefusesAnEmailAlreadyInUseWhateverItsCase) {
  account::create_user(*db, {"erin@example.com", "", Locale::en, {}});
  EXPECT_THROW(account::create_user(*db, {"ERIN@example.COM", "", Locale::en, {}}), std::invalid_argument);
  EXPECT_EQ(query_value(db_url, "SELECT count(*) FROM users"), "1");
}

TEST_F(AccountTest, RefusesAMalformedEmail) {
  for (const char* email : {"", "plain", "@example.com", "frank@", "fr ank@example.com", "a@b\n"}) {
    EXPECT_THROW(account::create_user(*db, {email, "", Locale::en, {}}), std::invalid_argument) << email;
  }
  EXPECT_THROW(account::create_user(*db, {std::string(250, 'a') + "@example.com", "", Locale::en, {}}),
               std::invalid_argument);
  EXPECT_EQ(query_value(db_url, "SELECT count(*) FROM users"), "0");
}

TEST_F(AccountTest, RefusesANegativeInitialBalance) {
  EXPECT_THROW(account::create_user(*db, {"gina@example.com", "", Locale::en, MinorUnits{-1}}), std::invalid_argument);
  EXPECT_EQ(query_value(db_url, "SELECT count(*) FROM users"), "0");
}

TEST_F(AccountTest, StoresUnicodeNamesAsGiven) {
  const auto p = account::create_user(*db, {"ivan@example.com", "Иван \"Ваня\" 🎙", Locale::ru, {}});
  EXPECT_EQ(account::find_profile(*db, p.id)->name, "Иван \"Ваня\" 🎙");
}

TEST_F(AccountTest, AdjustsABalanceUpAndDown) {
  const auto p = account::create_user(*db, {"hank@example.com", "", Locale::en, MinorUnits{1000}});
  auto up = account::adjust_balance(*db, p.id, MinorUnits{500}, "bonus");
  ASSERT_TRUE(up.has_value());
  EXPECT_EQ(up->balance.value, 1500);
  auto down = account::adjust_balance(*db, p.id, MinorUnits{-1500}, "refund");
  ASSERT_TRUE(down.has_value());
  EXPECT_EQ(down->balance.value, 0);
  EXPECT_EQ(ledger_of(p.id), "3:0");
}

TEST_F(AccountTest, RefusesAnAdjustmentBelowZeroAndChangesNothing) {
  const auto p = account::create_user(*db, {"iris@example.com", "", Locale::en, MinorUnits{1000}});
  EXPECT_THROW(account::adjust_balance(*db, p.id, MinorUnits{-1001}, "too much"), billing::InsufficientBalance);
  EXPECT_EQ(account::find_profile(*db, p.id)->balance.value, 1000);
  EXPECT_EQ(ledger_of(p.id), "1:1000");
}

TEST_F(AccountTest, WritesNoLedgerRowForAZeroAdjustment) {
  const auto p = account::create_user(*db, {"jack@example.com", "", Locale::en, MinorUnits{10}});
  auto same = account::adjust_balance(*db, p.id, MinorUnits{0}, "nothing");
  ASSERT_TRUE(same.has_value());
  EXPECT_EQ(same->balance.value, 10);
  EXPECT_EQ(ledger_of(p.id), "1:10");
}

TEST_F(AccountTest, AnswersNothingForAnUnknownUser) {
  EXPECT_FALSE(account::adjust_balance(*db, UserId{424242}, MinorUnits{5}, "x").has_value());
  EXPECT_FALSE(account::set_blocked(*db, UserId{424242}, true).has_value());
  EXPECT_FALSE(account::find_profile(*db, UserId{424242}).has_value());
  EXPECT_EQ(query_value(db_url, "SELECT count(*) FROM ledger_entries"), "0");
}

TEST_F(AccountTest, BlocksAndUnblocksAUser) {
  const auto p = account::create_user(*db, {"kate@example.com", "", Locale::en, {}});
  auto blocked = account::set_blocked(*db, p.id, true);
  ASSERT_TRUE(blocked.has_value());
  EXPECT_TRUE(blocked->blocked);
  EXPECT_TRUE(account::find_profile(*db, p.id)->blocked);
  auto unblocked = account::set_blocked(*db, p.id, false);
  ASSERT_TRUE(unblocked.has_value());
  EXPECT_FALSE(unblocked->blocked);
  EXPECT_EQ(query_value(db_url, "SELECT blocked_at IS NULL FROM users WHERE id = " + std::to_string(p.id.value)), "t");
}

TEST_F(AccountTest, KeepsTheFirstBlockTimeWhenBlockedTwice) {
  const auto p = account::create_user(*db, {"liam@example.com", "", Locale::en, {}});
  account::set_blocked(*db, p.id, true);
  const std::string sql = "SELECT blocked_at FROM users WHERE id = " + std::to_string(p.id.value);
  const std::string first = query_value(db_url, sql);
  account::set_blocked(*db, p.id, true);
  EXPECT_EQ(query_value(db_url, sql), first);
}

TEST_F(AccountTest, HidesADeletedUser) {
  const auto p = account::create_user(*db, {"mia@example.com", "", Locale::en, {}});
  query_value(db_url, "UPDATE users SET deleted_at = now() WHERE id = " + std::to_string(p.id.value));
  EXPECT_FALSE(account::find_profile(*db, p.id).has_value());
  EXPECT_FALSE(account::adjust_balance(*db, p.id, MinorUnits{5}, "x").has_value());
  EXPECT_FALSE(account::set_blocked(*db, p.id, true).has_value());
}

}  // namespace
}  // namespace mediagen::test
