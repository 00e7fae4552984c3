// Settling a lost COMMIT by the transaction's own id (db/settled.hpp), and the shared
// Idempotency-Key store (db/idempotency.hpp), against a real PostgreSQL. The lost COMMIT itself
// is injected end to end (tests/e2e/test_lost_commits.py); here: what PostgreSQL answers about a
// committed, a rolled-back and a still open transaction, and what the store answers a key.
#include <gtest/gtest.h>

#include <optional>
#include <string>

#include "mediagen/account/users.hpp"
#include "mediagen/db/idempotency.hpp"
#include "mediagen/db/pg.hpp"
#include "mediagen/db/settled.hpp"
#include "support.hpp"

namespace mediagen::test {
namespace {

class SettledCommitTest : public MigratedTest {
 protected:
  void SetUp() override {
    MigratedTest::SetUp();
    if (HasFatalFailure()) return;
    db.emplace(db_url, &counters);
    db::transact(*db, [&](db::Tx& tx) { db->exec_raw(tx, "CREATE TABLE scratch (v int)"); });
  }

  void TearDown() override {
    db.reset();
    MigratedTest::TearDown();
  }

  bool committed(std::int64_t xid) {
    return db::read(*db, [&](db::Tx& tx) { return db::transaction_committed(*db, tx, xid); });
  }

  std::int64_t rows() {
    return db::read(*db, [&](db::Tx& tx) { return db->exec_raw(tx, "SELECT count(*) FROM scratch")[0][0].as<std::int64_t>(); });
  }

  std::optional<db::Db> db;
};

TEST_F(SettledCommitTest, ACommittedTransactionIsKnownAsCommitted) {
  std::int64_t xid = 0;
  db::transact(*db, [&](db::Tx& tx) {
    db->exec_raw(tx, "INSERT INTO scratch VALUES (1)");
    xid = db::current_transaction_id(*db, tx);
  });
  EXPECT_TRUE(committed(xid));
}

TEST_F(SettledCommitTest, ARolledBackTransactionIsKnownAsNotCommitted) {
  std::int64_t xid = 0;
  auto refused = db::transact(*db, [&](db::Tx& tx) -> Result<void> {
    db->exec_raw(tx, "INSERT INTO scratch VALUES (1)");
    xid = db::current_transaction_id(*db, tx);
    return ApiError::not_found();
  });
  ASSERT_FALSE(refused);
  EXPECT_FALSE(committed(xid));
  EXPECT_EQ(rows(), 0);
}

TEST_F(SettledCommitTest, AnOpenTransactionIsNeitherAndEndsUnavailable) {
  db::Db other(db_url, nullptr);
  pqxx::work open(other.conn());
  open.exec("INSERT INTO scratch VALUES (1)");
  const auto xid = db::current_transaction_id(other, open);
  EXPECT_THROW(committed(xid), db::Unavailable);
  open.abort();
  EXPECT_FALSE(committed(xid));
}

TEST_F(SettledCommitTest, ASettledTransactionAnswersItsResultAndWritesOnce) {
  auto out = db::transact_settled(*db, [&](db::Tx& tx) -> Result<std::string> {
    db->exec_raw(tx, "INSERT INTO scratch VALUES (7)");
    return std::string("seven");
  });
  ASSERT_TRUE(out);
  EXPECT_EQ(*out, "seven");
  EXPECT_EQ(rows(), 1);
}

TEST_F(SettledCommitTest, TheStoreReplaysTheSameRequestAndRefusesAnother) {
  const UserId user = account::create_user(*db, {"keys@example.com", "Keys", Locale::en, {}}).id;
  const IdempotencyKey key{"k-1", std::string(64, 'a')};
  // First use: the key is claimed and the answer kept with the write.
  db::transact(*db, [&](db::Tx& tx) {
    auto claimed = db::claim_idempotency_key(*db, tx, user, "scope.one", key);
    ASSERT_TRUE(claimed);
    EXPECT_FALSE(*claimed);
    db::remember_answer(*db, tx, user, key, {.status = 201, .body = "{\"id\":1}"});
  });
  auto stored = db::stored_answer(*db, user, "scope.one", key);
  ASSERT_TRUE(stored && *stored);
  EXPECT_EQ((*stored)->status, 201);
  EXPECT_EQ((*stored)->body, "{\"id\":1}");
  db::transact(*db, [&](db::Tx& tx) {
    auto again = db::claim_idempotency_key(*db, tx, user, "scope.one", key);
    ASSERT_TRUE(again && *again);
    EXPECT_EQ((*again)->body, "{\"id\":1}");
  });
  // Another request under the key, or another operation: idempotency_key_reused.
  const IdempotencyKey other_body{"k-1", std::string(64, 'b')};
  auto reused = db::stored_answer(*db, user, "scope.one", other_body);
  ASSERT_TRUE(reused);
  ASSERT_FALSE(*reused);
  EXPECT_EQ(reused->error().reason, Reason::idempotency_key_reused);
  db::transact(*db, [&](db::Tx& tx) {
    auto elsewhere = db::claim_idempotency_key(*db, tx, user, "scope.two", key);
    ASSERT_FALSE(elsewhere);
    EXPECT_EQ(elsewhere.error().reason, Reason::idempotency_key_reused);
  });
  // A key nobody used has no answer.
  EXPECT_FALSE(db::stored_answer(*db, user, "scope.one", IdempotencyKey{"k-2", std::string(64, 'a')}));
}

}  // namespace
}  // namespace mediagen::test
