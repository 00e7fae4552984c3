// The chunk queue against real PostgreSQL: claims, leases, exactly-once charging, settling and
// the money each step moves (orders.md "Money"). Every test ends with the invariants.
#include <gtest/gtest.h>

#include <future>
#include <mutex>
#include <set>
#include <thread>

#include "orders/queue/work_store.hpp"
#include "workers_fixture.hpp"
#include "mediagen/db/pg.hpp"

namespace mediagen::test {
namespace {

using namespace std::chrono_literals;
using orders::ChunkOutput;
using orders::WorkQueue;
using orders::FailureKind;

orders::ChunkOutput output_for(const orders::ClaimedChunk& c) {
  return {"orders/" + c.order_id.str() + "/items/" + c.item_id.str() + ".mp3", 1000, 1500, "[[0,4,50]]"};
}

class WorkersQueueTest : public WorkersTest {
 protected:
  void SetUp() override {
    WorkersTest::SetUp();
    if (HasFatalFailure()) return;
    queue.emplace(*db);
  }
  void TearDown() override {
    queue.reset();
    WorkersTest::TearDown();
  }
  std::optional<orders::WorkQueue> queue;
};

TEST_F(WorkersQueueTest, ClaimTakesTheOldestChunkUnderALeaseAndStartsTheOrder) {
  const auto order = make_order({.texts = {"First chunk.", "Second chunk."}});
  auto c = queue->claim(30s);
  ASSERT_TRUE(c.has_value());
  EXPECT_EQ(c->item_id, order.items[0]);
  EXPECT_EQ(c->order_id, order.id);
  EXPECT_EQ(c->user_id, user);
  EXPECT_EQ(c->text, "First chunk.");
  EXPECT_EQ(c->chunk_index, 0);
  EXPECT_EQ(c->item_type, "chunk");
  EXPECT_EQ(c->task_type, TaskType::tts);
  EXPECT_NE(c->engine_request_json.find("espeak"), std::string::npos);
  EXPECT_EQ(item_field(c->item_id, "status"), "processing");
  EXPECT_EQ(item_field(c->item_id, "lease_token::text"), c->lease_token);
  EXPECT_EQ(item_field(c->item_id, "claims"), "1");
  EXPECT_EQ(item_field(c->item_id, "locked_until > now()"), "t");
  EXPECT_EQ(order_status(order.id), "in_progress");
  EXPECT_TRUE(queue->heartbeat(c->item_id, c->lease_token, 60s));
  EXPECT_FALSE(queue->heartbeat(c->item_id, LeaseToken::fresh(), 60s));
}

// A sibling chunk's claim that is starting the order holds the order row until it commits. The
// next claim takes its own chunk at once and leaves the start to that one: it neither waits for
// the row nor reports a start. Had the holder rolled back, the order's next claim starts it.
TEST_F(WorkersQueueTest, AClaimDoesNotWaitForTheTransactionThatHoldsItsOrderRow) {
  const auto order = make_order({.texts = {"First chunk.", "Second chunk.", "Third chunk."}});
  const auto waiting_status = order_status(order.id);
  ASSERT_TRUE(waiting_status == "created" || waiting_status == "pending") << waiting_status;
  pqxx::connection holder_conn(db_url);
  pqxx::work holder(holder_conn);
  holder.exec_params("SELECT 1 FROM orders WHERE id = $1::uuid FOR NO KEY UPDATE", order.id);

  auto claiming = std::async(std::launch::async, [&] { return queue->claim(30s); });
  // Either the claim returns, or PostgreSQL shows it waiting for a lock: then the holder lets go,
  // so that the test ends, and fails.
  bool waited = false;
  pqxx::connection watcher(db_url);
  while (claiming.wait_for(0s) != std::future_status::ready) {
    pqxx::nontransaction w(watcher);
    const auto n = w.exec("SELECT count(*) FROM pg_stat_activity WHERE wait_event_type = 'Lock' "
                          "AND pid <> pg_backend_pid() AND query LIKE '%FOR UPDATE SKIP LOCKED%'")[0][0].as<int>();
    if (n > 0) {
      waited = true;
      holder.abort();
      break;
    }
    std::this_thread::yield();
  }
  auto first = claiming.get();
  EXPECT_FALSE(waited) << "the claim waited for the transaction holding its order row";
  ASSERT_TRUE(first.has_value());
  EXPECT_EQ(first->item_id, order.items[0]);
  EXPECT_EQ(first->changes.size(), 1u) << "only the item changed: the order's start was left to the holder";
  EXPECT_EQ(order_status(order.id), waiting_status);

  if (!waited) holder.abort();  // the holder rolled back: nothing started the order
  auto second = queue->claim(30s);
  ASSERT_TRUE(second.has_value());
  EXPECT_EQ(second->item_id, order.items[1]);
  EXPECT_EQ(second->changes.size(), 2u);
  EXPECT_EQ(order_status(order.id), "in_progress");
}

TEST_F(WorkersQueueTest, CompletionChargesExactlyOnceAndASecondCompletionWritesNothing) {
  grant_quota(10);
  const auto order = make_order({.texts = {"Hello there.", "General."}, .tokens = {12, 8}});
  // 10 tokens from quota (chunk 0's first 10), 10 payg tokens at 1.5 minor each: 3 + 12 minor.
  ASSERT_EQ(order.tokens_from_quota, 10);
  ASSERT_EQ(order.price_units, 15);
  const auto wallet_after_lock = wallet();

  auto c = queue->claim(30s);
  ASSERT_TRUE(c);
  const auto settled = queue->complete(c->item_id, c->lease_token, output_for(*c));
  EXPECT_TRUE(settled.applied);
  EXPECT_FALSE(settled.stitch);
  EXPECT_EQ(item_field(c->item_id, "status"), "completed");
  EXPECT_EQ(item_field(c->item_id, "consumed_units"), "12");
  EXPECT_EQ(item_field(c->item_id, "remaining_locked"), "0");
  EXPECT_EQ(item_field(c->item_id, "lease_token"), "");
  EXPECT_EQ(item_field(c->item_id, "timings::text"), "[[0, 4, 50]]");
  EXPECT_EQ(number("SELECT count(*) FROM ledger_txns WHERE kind = 'chunk_charge' AND reference = '" + c->item_id.str() + "'"), 1);
  EXPECT_EQ(quota_escrow(order.id), 0);  // chunk 0 took all 10 quota tokens
  EXPECT_EQ(account("quota_spent", "platform", tokens), 10);
  EXPECT_EQ(account("revenue", "platform", money), 3);
  EXPECT_EQ(escrow(order.id), 12);

  const auto txns = ledger_txns();
  const auto entries = ledger_entries();
  const auto again = queue->complete(c->item_id, c->lease_token, output_for(*c));
  EXPECT_FALSE(again.applied);
  EXPECT_EQ(ledger_txns(), txns);
  EXPECT_EQ(ledger_entries(), entries);
  EXPECT_EQ(wallet(), wallet_after_lock);
}

TEST_F(WorkersQueueTest, AZombieWithAStaleTokenWritesNoRowAndNoMoneyAfterARescue) {
  const auto order = make_order({.texts = {"Only chunk."}});
  auto zombie = queue->claim(30s);
  ASSERT_TRUE(zombie);
  expire_leases();
  const auto swept = queue->release_expired_leases();
  EXPECT_EQ(swept.requeued, 1);
  EXPECT_EQ(item_field(zombie->item_id, "status"), "pending");
  EXPECT_EQ(order_status(order.id), "pending");

  db::Db other_db(db_url, &counters);
  orders::WorkQueue rescuer(other_db);
  auto rescue = rescuer.claim(30s);
  ASSERT_TRUE(rescue);
  EXPECT_EQ(rescue->item_id, zombie->item_id);
  EXPECT_NE(rescue->lease_token, zombie->lease_token);
  EXPECT_EQ(order_status(order.id), "in_progress");

  const auto txns = ledger_txns();
  const auto entries = ledger_entries();
  auto late = output_for(*zombie);
  late.result_path = "orders/" + order.id + "/items/zombie.mp3";
  EXPECT_FALSE(queue->complete(zombie->item_id, zombie->lease_token, late).applied);
  EXPECT_FALSE(queue->fail(zombie->item_id, zombie->lease_token, orders::FailureKind::technical, "engine_error").applied);
  EXPECT_FALSE(queue->heartbeat(zombie->item_id, zombie->lease_token, 30s));
  EXPECT_EQ(ledger_txns(), txns);
  EXPECT_EQ(ledger_entries(), entries);
  EXPECT_EQ(item_field(zombie->item_id, "status"), "processing");
  EXPECT_EQ(item_field(zombie->item_id, "lease_token::text"), rescue->lease_token);

  const auto done = rescuer.complete(rescue->item_id, rescue->lease_token, output_for(*rescue));
  EXPECT_TRUE(done.applied);
  ASSERT_TRUE(done.stitch);
  EXPECT_EQ(item_field(zombie->item_id, "result_path"), output_for(*rescue).result_path);
  EXPECT_EQ(item_field(zombie->item_id, "claims"), "2");
  EXPECT_EQ(number("SELECT count(*) FROM ledger_txns WHERE kind = 'chunk_charge'"), 1);
}

TEST_F(WorkersQueueTest, TwoWorkersShareTwoHundredChunksAndNoneIsDoneTwice) {
  std::vector<FixtureOrder> orders;
  for (int o = 0; o < 4; ++o) {
    OrderSpec spec;
    for (int i = 0; i < 50; ++i) spec.texts.push_back("Chunk " + std::to_string(o) + "." + std::to_string(i));
    orders.push_back(make_order(spec));
  }
  std::mutex m;
  std::vector<std::string> done;
  std::vector<std::string> stitches;
  auto work = [&] {
    db::Db own(db_url, &counters);
    orders::WorkQueue q(own);
    while (auto c = q.claim(30s)) {
      const auto settled = q.complete(c->item_id, c->lease_token, output_for(*c));
      std::lock_guard lock(m);
      if (settled.applied) done.push_back(c->item_id.str());
      if (settled.stitch) stitches.push_back(settled.stitch->order_id.str());
    }
  };
  std::thread a(work), b(work);
  a.join();
  b.join();
  EXPECT_EQ(done.size(), 200u);
  EXPECT_EQ(std::set<std::string>(done.begin(), done.end()).size(), 200u);
  EXPECT_EQ(stitches.size(), 4u);
  EXPECT_EQ(std::set<std::string>(stitches.begin(), stitches.end()).size(), 4u);
  EXPECT_EQ(number("SELECT count(*) FROM ledger_txns WHERE kind = 'chunk_charge'"), 200);
  EXPECT_EQ(number("SELECT count(*) FROM order_items WHERE status = 'completed' AND claims = 1"), 200);
  for (const auto& o : orders) EXPECT_EQ(escrow(o.id), 0);
}

TEST_F(WorkersQueueTest, MixedOutcomesSettleToPartiallyCompletedAndKeepTheFailedLocks) {
  const auto order = make_order({.texts = {"One one one.", "Two two two.", "Three three."}, .price_per_1k_minor = 100000});
  const auto wallet_after_lock = wallet();
  auto c0 = queue->claim(30s);
  auto c1 = queue->claim(30s);
  auto c2 = queue->claim(30s);
  ASSERT_TRUE(c0 && c1 && c2);
  EXPECT_FALSE(queue->complete(c0->item_id, c0->lease_token, output_for(*c0)).stitch);
  EXPECT_TRUE(queue->fail(c1->item_id, c1->lease_token, orders::FailureKind::technical, "engine_error").applied);
  EXPECT_EQ(order_status(order.id), "in_progress");
  const auto last = queue->fail(c2->item_id, c2->lease_token, orders::FailureKind::policy, "content_policy");
  EXPECT_TRUE(last.applied);
  EXPECT_FALSE(last.stitch);
  EXPECT_EQ(order_status(order.id), "partially_completed");
  EXPECT_EQ(item_field(c1->item_id, "status"), "failed");
  EXPECT_EQ(item_field(c1->item_id, "failure_reason"), "engine_error");
  EXPECT_EQ(item_field(c2->item_id, "status"), "policy_flagged");
  EXPECT_EQ(item_field(c2->item_id, "failure_reason"), "content_policy");
  EXPECT_EQ(item_field(c2->item_id, "remaining_locked"), item_field(c2->item_id, "price_units"));
  // The failed chunks' money stays locked for their free retries; nothing went back yet.
  const auto charged = number("SELECT payg_minor FROM order_items WHERE id = '" + c0->item_id.str() + "'");
  EXPECT_EQ(escrow(order.id), order.price_units - charged);
  EXPECT_EQ(wallet(), wallet_after_lock);
  EXPECT_EQ(value("SELECT terminal_at IS NULL FROM orders WHERE id = '" + order.id + "'"), "t");
}

TEST_F(WorkersQueueTest, AnOrderWithNothingCompletedFailsAndReleasesEveryUnitExactly) {
  grant_quota(15);
  const auto quota_before = quota();
  const auto wallet_before = wallet();
  const auto order = make_order({.texts = {"Alpha beta.", "Gamma delta."}, .tokens = {10, 20}, .price_per_1k_minor = 7777});
  ASSERT_EQ(order.tokens_from_quota, 15);
  EXPECT_EQ(wallet(), wallet_before - order.price_units);
  EXPECT_EQ(quota(), quota_before - 15);
  auto c0 = queue->claim(30s);
  auto c1 = queue->claim(30s);
  ASSERT_TRUE(c0 && c1);
  queue->fail(c0->item_id, c0->lease_token, orders::FailureKind::technical, "engine_error");
  const auto last = queue->fail(c1->item_id, c1->lease_token, orders::FailureKind::technical, "storage_error");
  EXPECT_TRUE(last.applied);
  EXPECT_EQ(order_status(order.id), "failed");
  EXPECT_EQ(value("SELECT terminal_at IS NOT NULL FROM orders WHERE id = '" + order.id + "'"), "t");
  EXPECT_EQ(wallet(), wallet_before);
  EXPECT_EQ(quota(), quota_before);
  EXPECT_EQ(escrow(order.id), 0);
  EXPECT_EQ(quota_escrow(order.id), 0);
  EXPECT_EQ(number("SELECT count(*) FROM order_items WHERE remaining_locked <> 0"), 0);
  EXPECT_EQ(number("SELECT count(*) FROM ledger_txns WHERE kind = 'order_release' AND reference = '" + order.id + "'"), 1);
  EXPECT_EQ(number("SELECT count(*) FROM ledger_txns WHERE kind = 'chunk_charge'"), 0);
}

TEST_F(WorkersQueueTest, AFailedRetryReturnsExactlyItsSurcharge) {
  const auto order = make_order({.texts = {"Good.", "Bad one."}, .price_per_1k_minor = 100000});
  auto c0 = queue->claim(30s);
  auto c1 = queue->claim(30s);
  ASSERT_TRUE(c0 && c1);
  queue->complete(c0->item_id, c0->lease_token, output_for(*c0));
  queue->fail(c1->item_id, c1->lease_token, orders::FailureKind::technical, "engine_error");
  ASSERT_EQ(order_status(order.id), "partially_completed");

  // A retry as the retry operation leaves it: it takes over the parent's base lock and adds a
  // surcharge of 4 tokens (3 minor + 1 quota token) locked on top.
  grant_quota(1);
  const auto retry = value(
      "WITH ins AS (INSERT INTO order_items (order_id, item_type, chunk_index, parent_item_id, attempt_number,"
      " original_text_length, current_text_length, free_length, billable_length, max_billable_length, max_raw_length,"
      " raw_length, capacity_unit, price_units, quota_tokens, payg_minor, surcharge_tokens, surcharge_quota_tokens,"
      " surcharge_minor, remaining_locked)"
      " SELECT order_id, 'retry', chunk_index, id, 2, original_text_length, 16, free_length,"
      " 12, max_billable_length, max_raw_length, 16, capacity_unit, price_units + 4, quota_tokens, payg_minor, 4, 1, 3,"
      " price_units + 4 FROM order_items WHERE id = '" + c1->item_id.str() + "' RETURNING id),"
      " t AS (INSERT INTO order_item_texts SELECT id, 'Bad one, longer.' FROM ins) SELECT id::text FROM ins");
  value("UPDATE order_items SET remaining_locked = 0, quota_tokens = 0, payg_minor = 0 WHERE id = '" + c1->item_id.str() + "'");
  const auto payg = number("SELECT payg_minor FROM order_items WHERE id = '" + retry + "'");
  EXPECT_GT(payg, 0);
  db::transact(*db, [&](db::Tx& tx) {
    billing::Transfer t{.kind = "retry_surcharge", .reference = retry, .user = user, .order_id = order.id};
    t.legs.push_back({billing::Account::wallet(user, money), billing::Account::escrow(user, order.id, money), 3});
    t.legs.push_back({billing::Account::quota(user, tokens), billing::Account::quota_escrow(user, order.id, tokens), 1});
    billing::post(*db, tx, t);
  });
  const auto wallet_before = wallet();
  const auto quota_before = quota();
  const auto escrow_before = escrow(order.id);

  auto r = queue->claim(30s);
  ASSERT_TRUE(r);
  EXPECT_EQ(r->item_id, retry);
  EXPECT_EQ(r->item_type, "retry");
  EXPECT_EQ(order_status(order.id), "partially_completed");  // a claim never touches a settled order
  EXPECT_TRUE(queue->fail(r->item_id, r->lease_token, orders::FailureKind::technical, "engine_error").applied);
  EXPECT_EQ(wallet(), wallet_before + 3);
  EXPECT_EQ(quota(), quota_before + 1);
  EXPECT_EQ(escrow(order.id), escrow_before - 3);
  EXPECT_EQ(item_field(retry, "remaining_locked"), item_field(c1->item_id, "price_units"));
  EXPECT_EQ(order_status(order.id), "partially_completed");
}

TEST_F(WorkersQueueTest, AChunkThatKeepsLosingItsLeaseFailsAfterFiveClaims) {
  const auto wallet_before = wallet();
  const auto order = make_order({.texts = {"Doomed."}});
  for (int round = 1; round <= orders::kMaxClaims; ++round) {
    auto c = queue->claim(30s);
    ASSERT_TRUE(c) << round;
    expire_leases();
    const auto swept = queue->release_expired_leases();
    EXPECT_EQ(swept.requeued + swept.failed, 1);
  }
  EXPECT_FALSE(queue->claim(30s));
  EXPECT_EQ(item_field(order.items[0], "status"), "failed");
  EXPECT_EQ(item_field(order.items[0], "failure_reason"), "lease_expired");
  EXPECT_EQ(order_status(order.id), "failed");
  EXPECT_EQ(wallet(), wallet_before);
}

TEST_F(WorkersQueueTest, TheSweeperLeavesLiveLeasesAlone) {
  make_order({.texts = {"Alive."}});
  auto c = queue->claim(30s);
  ASSERT_TRUE(c);
  const auto swept = queue->release_expired_leases();
  EXPECT_EQ(swept.requeued + swept.failed, 0);
  EXPECT_EQ(item_field(c->item_id, "status"), "processing");
  EXPECT_TRUE(queue->complete(c->item_id, c->lease_token, output_for(*c)).applied);
}

TEST_F(WorkersQueueTest, ADrainPutsItsChunksBackWithoutCountingTheClaim) {
  const auto order = make_order({.texts = {"One.", "Two."}});
  auto a = queue->claim(30s);
  auto b = queue->claim(30s);
  ASSERT_TRUE(a && b);
  const std::vector<LeaseToken> tokens{a->lease_token, b->lease_token};
  EXPECT_EQ(queue->release_own(tokens), 2);
  EXPECT_EQ(number("SELECT count(*) FROM order_items WHERE status = 'pending' AND claims = 0 AND lease_token IS NULL"), 2);
  EXPECT_EQ(order_status(order.id), "pending");
  EXPECT_FALSE(queue->complete(a->item_id, a->lease_token, output_for(*a)).applied);
  EXPECT_EQ(number("SELECT count(*) FROM ledger_txns WHERE kind = 'chunk_charge'"), 0);
}

TEST_F(WorkersQueueTest, AnExpiredStitchIsHandedOutOnceUnderANewToken) {
  const auto order = make_order({.texts = {"Stitch me."}});
  auto c = queue->claim(30s);
  ASSERT_TRUE(c);
  const auto settled = queue->complete(c->item_id, c->lease_token, output_for(*c));
  ASSERT_TRUE(settled.stitch);
  EXPECT_TRUE(queue->expired_stitches().empty());
  value("UPDATE orders SET stitch_until = now() - interval '1 second' WHERE id = '" + order.id + "'");
  const auto jobs = queue->expired_stitches();
  ASSERT_EQ(jobs.size(), 1u);
  EXPECT_EQ(jobs[0].order_id, order.id);
  EXPECT_NE(jobs[0].token, settled.stitch->token);
  EXPECT_TRUE(queue->expired_stitches().empty());

  const orders::StitchedResult result{{"orders/" + order.id + "/result.mp3"}, {"orders/" + order.id + "/result.srt"}, 1500};
  EXPECT_FALSE(queue->finish_stitch(*settled.stitch, result));
  EXPECT_EQ(order_status(order.id), "in_progress");
  std::vector<orders::OrderChange> changes;
  EXPECT_TRUE(queue->finish_stitch(jobs[0], result, &changes));
  EXPECT_EQ(order_status(order.id), "completed");
  ASSERT_EQ(changes.size(), 1u);
  EXPECT_EQ(changes[0].status, "completed");
  EXPECT_EQ(value("SELECT result_files::text FROM orders WHERE id = '" + order.id + "'"),
            "[\"orders/" + order.id + "/result.mp3\"]");
  EXPECT_EQ(value("SELECT result_duration_ms FROM orders WHERE id = '" + order.id + "'"), "1500");
  EXPECT_EQ(value("SELECT stitch_token IS NULL AND terminal_at IS NOT NULL FROM orders WHERE id = '" + order.id + "'"),
            "t");
  EXPECT_FALSE(queue->finish_stitch(jobs[0], result));
}

TEST_F(WorkersQueueTest, FinishingAStitchReleasesWhatTheEscrowStillHolds) {
  const auto order = make_order({.texts = {"Leftover."}});
  db::transact(*db, [&](db::Tx& tx) {
    billing::Transfer t{.kind = "test_extra_lock", .reference = order.id, .user = user, .order_id = order.id};
    t.legs.push_back({billing::Account::wallet(user, money), billing::Account::escrow(user, order.id, money), 7});
    billing::post(*db, tx, t);
  });
  const auto wallet_before = wallet();
  auto c = queue->claim(30s);
  ASSERT_TRUE(c);
  const auto settled = queue->complete(c->item_id, c->lease_token, output_for(*c));
  ASSERT_TRUE(settled.stitch);
  ASSERT_TRUE(queue->finish_stitch(*settled.stitch, {{"orders/" + order.id + "/result.mp3"}, {}, 10}));
  EXPECT_EQ(wallet(), wallet_before + 7);
  EXPECT_EQ(escrow(order.id), 0);
}

TEST_F(WorkersQueueTest, ACancelledOrderIsNeverCompletedByALateStitch) {
  const auto order = make_order({.texts = {"Cancel me."}});
  auto c = queue->claim(30s);
  ASSERT_TRUE(c);
  const auto settled = queue->complete(c->item_id, c->lease_token, output_for(*c));
  ASSERT_TRUE(settled.stitch);
  // The owner cancels meanwhile (as the cancel operation does: status, terminal_at, release).
  db::transact(*db, [&](db::Tx& tx) {
    tx.exec("UPDATE orders SET status = 'cancelled', terminal_at = now() WHERE id = '" + order.id + "'");
    billing::Transfer t{.kind = "order_release", .reference = order.id, .user = user, .order_id = order.id};
    t.legs.push_back({billing::Account::escrow(user, order.id, money), billing::Account::wallet(user, money),
                      billing::balance(*db, tx, billing::Account::escrow(user, order.id, money))});
    billing::post(*db, tx, t);
  });
  EXPECT_FALSE(queue->finish_stitch(*settled.stitch, {{"orders/" + order.id + "/result.mp3"}, {}, 10}));
  EXPECT_EQ(order_status(order.id), "cancelled");
  value("UPDATE orders SET stitch_until = now() - interval '1 second' WHERE id = '" + order.id + "'");
  EXPECT_TRUE(queue->expired_stitches().empty());
  EXPECT_EQ(value("SELECT stitch_token IS NULL FROM orders WHERE id = '" + order.id + "'"), "t");
}

TEST_F(WorkersQueueTest, TheClaimGoesThroughThePartialQueueIndex) {
  OrderSpec spec;
  for (int i = 0; i < 300; ++i) spec.texts.push_back("Chunk " + std::to_string(i));
  make_order(spec);
  value("ANALYZE order_items");
  pqxx::connection conn(db_url);
  pqxx::work tx(conn);
  std::string plan;
  for (const auto& row : tx.exec_params(std::string("EXPLAIN ") + orders::detail::kClaimSql,
                                        "00000000-0000-4000-8000-000000000000", 1000)) {
    plan += row[0].as<std::string>() + "\n";
  }
  EXPECT_NE(plan.find("order_items_queue"), std::string::npos) << plan;
}

}  // namespace
}  // namespace mediagen::test
