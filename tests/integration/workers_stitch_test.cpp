// The stitcher on real PostgreSQL and a local store: which record of a position is used, what
// a missing chunk file does, and the invariants' own ability to fail.
#include <gtest/gtest.h>

#include "mediagen/engines/audio.hpp"
#include "mediagen/engines/speech.hpp"
#include "mediagen/workers/stitcher.hpp"
#include "mediagen/db/pg.hpp"
#include "unit/engines/mp3_decode.hpp"
#include "workers_fixture.hpp"

namespace mediagen::test {
namespace {

using namespace std::chrono_literals;

class WorkersStitchTest : public WorkersTest {
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

  // A chunk's audio of `ms` milliseconds of tone, stored under `key`.
  orders::ChunkOutput stored_audio(const std::string& key, int ms) {
    engines::SpeechPcm pcm;
    pcm.sample_rate = 22050;
    pcm.samples.assign(static_cast<std::size_t>(22050 * ms / 1000), 3000);
    auto audio = engines::finish_chunk(std::move(pcm)).value();
    EXPECT_TRUE(store->put(key, audio.mp3).has_value());
    return {key, static_cast<std::int64_t>(audio.mp3.size()), audio.duration_ms, "[]"};
  }

  std::optional<orders::WorkQueue> queue;
};

TEST_F(WorkersStitchTest, TheNewestCompletedRecordOfAPositionIsTheOneStitched) {
  const auto order = make_order({.texts = {"Zero.", "One."}});
  auto a = queue->claim(30s);
  auto b = queue->claim(30s);
  ASSERT_TRUE(a && b);
  const auto short_audio = stored_audio("orders/" + order.id + "/items/a.mp3", 500);
  queue->complete(a->item_id, a->lease_token, short_audio);
  auto settled = queue->complete(b->item_id, b->lease_token, stored_audio("orders/" + order.id + "/items/b.mp3", 500));
  ASSERT_TRUE(settled.stitch);
  workers::Stitcher stitcher(*store);
  ASSERT_EQ(stitcher.stitch(*queue, *settled.stitch), workers::StitchOutcome::completed);
  const auto first = number("SELECT result_duration_ms FROM orders WHERE id = '" + order.id + "'");

  // A regeneration of position 0 with longer audio completes: the order is stitched again with it.
  const auto regen = value(
      "WITH ins AS (INSERT INTO order_items (order_id, item_type, chunk_index, parent_item_id, original_text_length,"
      " current_text_length, free_length, billable_length, max_billable_length, max_raw_length, raw_length,"
      " capacity_unit, price_units, remaining_locked)"
      " SELECT order_id, 'regeneration', 0, id, 5, 11, 5, 11, 11, 5000, 11, 'chars', 0, 0"
      " FROM order_items WHERE id = '" + a->item_id.str() + "' RETURNING id),"
      " t AS (INSERT INTO order_item_texts SELECT id, 'Zero again.' FROM ins) SELECT id::text FROM ins");
  auto r = queue->claim(30s);
  ASSERT_TRUE(r);
  EXPECT_EQ(r->item_id, regen);
  const auto long_audio = stored_audio("orders/" + order.id + "/items/r.mp3", 2000);
  settled = queue->complete(r->item_id, r->lease_token, long_audio);
  ASSERT_TRUE(settled.stitch);
  ASSERT_EQ(stitcher.stitch(*queue, *settled.stitch), workers::StitchOutcome::completed);
  EXPECT_EQ(order_status(order.id), "completed");
  const auto second = number("SELECT result_duration_ms FROM orders WHERE id = '" + order.id + "'");
  EXPECT_NEAR(static_cast<double>(second - first), static_cast<double>(long_audio.duration_ms - short_audio.duration_ms),
              1);
  auto size = store->stat("orders/" + order.id + "/result.mp3").value();
  const auto decoded = engines::testing::decode_mp3(store->read("orders/" + order.id + "/result.mp3", 0, *size).value());
  ASSERT_TRUE(decoded.ok);
  EXPECT_NEAR(static_cast<double>(decoded.duration_ms()), static_cast<double>(second), 1);
}

TEST_F(WorkersStitchTest, AMissingChunkFileLeavesTheOrderForTheNextStitcher) {
  const auto order = make_order({.texts = {"Gone."}});
  auto c = queue->claim(30s);
  ASSERT_TRUE(c);
  const auto settled = queue->complete(c->item_id, c->lease_token, {"orders/" + order.id + "/items/x.mp3", 1, 1, "[]"});
  ASSERT_TRUE(settled.stitch);
  workers::Stitcher stitcher(*store);
  EXPECT_EQ(stitcher.stitch(*queue, *settled.stitch), workers::StitchOutcome::retry);
  EXPECT_EQ(order_status(order.id), "in_progress");
  EXPECT_EQ(value("SELECT stitch_token::text FROM orders WHERE id = '" + order.id + "'"), settled.stitch->token);
  // The file arrives (say the store was briefly unreachable); the stitch lease runs out; redone.
  stored_audio("orders/" + order.id + "/items/x.mp3", 300);
  value("UPDATE orders SET stitch_until = now() - interval '1 second' WHERE id = '" + order.id + "'");
  const auto jobs = queue->expired_stitches();
  ASSERT_EQ(jobs.size(), 1u);
  EXPECT_EQ(stitcher.stitch(*queue, jobs[0]), workers::StitchOutcome::completed);
  EXPECT_EQ(order_status(order.id), "completed");
}

// Many chunks, one of them longer than a read piece (so frames straddle the pieces): the track
// is exactly the chunks' frames, its recorded length theirs, and it decodes to their samples.
TEST_F(WorkersStitchTest, AManyChunkOrderStreamsIntoATrackThatDecodesToTheSumOfItsChunks) {
  constexpr int kChunks = 120;
  std::vector<std::string> texts(kChunks, "Part.");
  const auto order = make_order({.texts = texts});
  std::vector<std::string> mp3s;
  for (int ms : {260, 410, 530, 700, 40'000}) {
    engines::SpeechPcm pcm;
    pcm.sample_rate = 22050;
    pcm.samples.assign(static_cast<std::size_t>(22050LL * ms / 1000), 2500);
    mp3s.push_back(engines::finish_chunk(std::move(pcm)).value().mp3);
  }
  std::int64_t samples = 0, bytes = 0, sum_ms = 0;
  std::optional<orders::StitchJob> job;
  for (int i = 0; i < kChunks; ++i) {
    auto c = queue->claim(30s);
    ASSERT_TRUE(c);
    // The long one sits in the middle, between short ones.
    const auto& mp3 = c->chunk_index == kChunks / 2 ? mp3s.back() : mp3s[static_cast<std::size_t>(c->chunk_index) % 4];
    const std::string key = "orders/" + order.id + "/items/" + c->item_id.str() + ".mp3";
    ASSERT_TRUE(store->put(key, mp3).has_value());
    const auto frames = engines::scan_mp3(mp3).value();
    samples += frames.decoded_samples;
    sum_ms += frames.duration_ms;
    bytes += static_cast<std::int64_t>(mp3.size());
    auto settled = queue->complete(c->item_id, c->lease_token,
                                   {key, static_cast<std::int64_t>(mp3.size()), frames.duration_ms, "[]"});
    if (settled.stitch) job = settled.stitch;
  }
  ASSERT_TRUE(job);
  workers::Stitcher stitcher(*store);
  ASSERT_EQ(stitcher.stitch(*queue, *job), workers::StitchOutcome::completed);

  const auto key = "orders/" + order.id + "/result.mp3";
  const auto size = store->stat(key).value();
  ASSERT_TRUE(size.has_value());
  EXPECT_EQ(static_cast<std::int64_t>(*size), bytes);
  const auto track = store->read(key, 0, *size).value();
  const auto frames = engines::scan_mp3(track).value();
  EXPECT_EQ(frames.decoded_samples, samples);
  const auto recorded = number("SELECT result_duration_ms FROM orders WHERE id = '" + order.id + "'");
  EXPECT_EQ(recorded, frames.duration_ms);
  EXPECT_NEAR(static_cast<double>(recorded), static_cast<double>(sum_ms), kChunks);  // per-chunk rounding
  const auto decoded = engines::testing::decode_mp3(track);
  ASSERT_TRUE(decoded.ok) << decoded.error;
  EXPECT_EQ(static_cast<std::int64_t>(decoded.samples.size()), samples);
}

TEST_F(WorkersStitchTest, TheInvariantsCatchATerminalOrderStillHoldingMoney) {
  const auto order = make_order({.texts = {"Broken on purpose."}});
  value("UPDATE order_items SET status = 'failed', failure_reason = 'engine_error' WHERE order_id = '" + order.id + "'");
  value("UPDATE orders SET status = 'failed', terminal_at = now() WHERE id = '" + order.id + "'");
  const auto violations = invariant_violations(db_url);
  bool escrow_flagged = false, locks_flagged = false;
  for (const auto& v : violations) {
    escrow_flagged = escrow_flagged || v.rfind("I7 ", 0) == 0;
    locks_flagged = locks_flagged || v.rfind("I9 ", 0) == 0;
  }
  EXPECT_TRUE(escrow_flagged);
  EXPECT_TRUE(locks_flagged);
  EXPECT_NE(violations.front().find(order.id), std::string::npos);
  // Put right, so the teardown check passes.
  db::transact(*db, [&](db::Tx& tx) {
    billing::Transfer t{.kind = "order_release", .reference = order.id, .user = user, .order_id = order.id};
    t.legs.push_back({billing::Account::escrow(user, order.id, money), billing::Account::wallet(user, money),
                      billing::balance(*db, tx, billing::Account::escrow(user, order.id, money))});
    billing::post(*db, tx, t);
    tx.exec("UPDATE order_items SET remaining_locked = 0 WHERE order_id = '" + order.id + "'");
  });
  EXPECT_TRUE(invariant_violations(db_url).empty());
}

}  // namespace
}  // namespace mediagen::test
