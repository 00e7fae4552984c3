// Retention and compensation (the janitor) on real PostgreSQL and a local store, with the
// durations given as options (0 s: due now; a day: not due), never slept.
#include <gtest/gtest.h>

#include "mediagen/engines/audio.hpp"
#include "mediagen/engines/speech.hpp"
#include "mediagen/workers/janitor.hpp"
#include "mediagen/workers/stitcher.hpp"
#include "workers_fixture.hpp"

namespace mediagen::test {
namespace {

using namespace std::chrono_literals;
using orders::FailureKind;

class WorkersJanitorTest : public WorkersTest {
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

  // Runs every chunk of the order to completion with a stored file, then stitches it.
  void complete_with_files(const FixtureOrder& order) {
    ToneSource tone;
    while (auto c = queue->claim(30s)) {
      engines::SpeechRequest r;
      r.text = *c->text;
      auto audio = engines::finish_chunk(tone.speak(r).value()).value();
      const auto key = "orders/" + c->order_id.str() + "/items/" + c->item_id.str() + ".mp3";
      ASSERT_TRUE(store->put(key, audio.mp3).has_value());
      const auto settled = queue->complete(c->item_id, c->lease_token,
                                           {key, static_cast<std::int64_t>(audio.mp3.size()), audio.duration_ms, "[]"});
      if (settled.stitch) {
        workers::Stitcher stitcher(*store);
        ASSERT_EQ(stitcher.stitch(*queue, *settled.stitch), workers::StitchOutcome::completed);
      }
    }
    ASSERT_EQ(order_status(order.id), "completed");
  }

  // Two chunks: the first completes, the second fails -> partially_completed.
  FixtureOrder partially_completed() {
    const auto order = make_order({.texts = {"Kept.", "Lost chunk."}, .price_per_1k_minor = 100000});
    auto a = queue->claim(30s);
    auto b = queue->claim(30s);
    queue->complete(a->item_id, a->lease_token, {"orders/" + order.id + "/items/a.mp3", 10, 100, "[]"});
    queue->fail(b->item_id, b->lease_token, orders::FailureKind::technical, "engine_error");
    EXPECT_EQ(order_status(order.id), "partially_completed");
    return order;
  }

  std::optional<orders::WorkQueue> queue;
};

TEST_F(WorkersJanitorTest, RetentionRemovesFilesAndTextsButTheOrderKeepsItsPaths) {
  const auto order = make_order({.texts = {"Private words.", "More private words."}});
  complete_with_files(order);
  const auto files = value("SELECT result_files::text FROM orders WHERE id = '" + order.id + "'");
  ASSERT_TRUE(store->stat("orders/" + order.id + "/result.mp3").value().has_value());

  workers::Janitor later(*db, *store, {.retention = 24h, .compensate_after = 24h});
  EXPECT_EQ(later.run_once().files_removed, 0);
  EXPECT_TRUE(store->stat("orders/" + order.id + "/result.mp3").value().has_value());

  workers::Janitor due(*db, *store, {.retention = 0s, .compensate_after = 24h});
  EXPECT_EQ(due.run_once().files_removed, 1);
  EXPECT_FALSE(store->stat("orders/" + order.id + "/result.mp3").value().has_value());
  EXPECT_FALSE(store->stat("orders/" + order.id + "/result.srt").value().has_value());
  EXPECT_FALSE(store->stat(item_field(order.items[0], "result_path")).value().has_value());
  EXPECT_EQ(value("SELECT files_removed_at IS NOT NULL AND input_removed_at IS NOT NULL AND input_text IS NULL"
                  " FROM orders WHERE id = '" + order.id + "'"),
            "t");
  EXPECT_EQ(number("SELECT count(*) FROM order_items i JOIN order_item_texts t ON t.item_id = i.id"
                   " WHERE i.order_id = '" + order.id + "'"), 0);
  EXPECT_EQ(number("SELECT count(*) FROM order_items WHERE order_id = '" + order.id + "' AND result_path IS NULL"), 0);
  EXPECT_EQ(value("SELECT result_files::text FROM orders WHERE id = '" + order.id + "'"), files);
  EXPECT_EQ(order_status(order.id), "completed");
  EXPECT_EQ(due.run_once().files_removed, 0);  // once
}

TEST_F(WorkersJanitorTest, RetentionNeverTouchesAnOrderThatIsStillOpen) {
  const auto order = partially_completed();
  workers::Janitor due(*db, *store, {.retention = 0s, .compensate_after = 24h});
  EXPECT_EQ(due.run_once().files_removed, 0);
  EXPECT_EQ(value("SELECT input_text FROM orders WHERE id = '" + order.id + "'"), "input");
}

TEST_F(WorkersJanitorTest, AnAbandonedPartialOrderIsCompensatedWithEveryLockedUnitReturned) {
  const auto wallet_before = wallet();
  const auto order = partially_completed();
  const auto charged = number("SELECT payg_minor FROM order_items WHERE id = '" + order.items[0] + "'");
  ASSERT_GT(escrow(order.id), 0);

  workers::Janitor patient(*db, *store, {.retention = 24h, .compensate_after = 24h});
  EXPECT_EQ(patient.run_once().compensated, 0);
  EXPECT_EQ(order_status(order.id), "partially_completed");

  workers::Janitor due(*db, *store, {.retention = 24h, .compensate_after = 0s});
  const auto report = due.run_once();
  EXPECT_EQ(report.compensated, 1);
  ASSERT_EQ(report.changes.size(), 1u);
  EXPECT_EQ(report.changes[0].status, "compensated");
  EXPECT_EQ(order_status(order.id), "compensated");
  EXPECT_EQ(value("SELECT terminal_at IS NOT NULL FROM orders WHERE id = '" + order.id + "'"), "t");
  EXPECT_EQ(escrow(order.id), 0);
  EXPECT_EQ(wallet(), wallet_before - charged);
  EXPECT_EQ(number("SELECT count(*) FROM order_items WHERE remaining_locked <> 0"), 0);
  EXPECT_EQ(number("SELECT count(*) FROM ledger_txns WHERE kind = 'order_release' AND reference = '" + order.id + "'"), 1);
  EXPECT_EQ(due.run_once().compensated, 0);
}

TEST_F(WorkersJanitorTest, APartialOrderWithARetryWaitingIsNotAbandoned) {
  const auto order = partially_completed();
  // A retry record waiting in the queue (as the retry operation creates it).
  value("WITH ins AS (INSERT INTO order_items (order_id, item_type, chunk_index, parent_item_id, attempt_number,"
        " original_text_length, current_text_length, free_length, billable_length, max_billable_length,"
        " max_raw_length, raw_length, capacity_unit, price_units, quota_tokens, payg_minor, remaining_locked)"
        " SELECT order_id, 'retry', chunk_index, id, 2, original_text_length, current_text_length, free_length,"
        " billable_length, max_billable_length, max_raw_length, raw_length, capacity_unit, price_units, quota_tokens,"
        " payg_minor, price_units FROM order_items WHERE id = '" + order.items[1] + "' RETURNING id, parent_item_id)"
        " INSERT INTO order_item_texts SELECT ins.id, p.text FROM ins JOIN order_item_texts p ON p.item_id = ins.parent_item_id");
  value("UPDATE order_items SET remaining_locked = 0, quota_tokens = 0, payg_minor = 0 WHERE id = '" +
        order.items[1] + "'");
  workers::Janitor due(*db, *store, {.retention = 24h, .compensate_after = 0s});
  EXPECT_EQ(due.run_once().compensated, 0);
  EXPECT_EQ(order_status(order.id), "partially_completed");
}

}  // namespace
}  // namespace mediagen::test
