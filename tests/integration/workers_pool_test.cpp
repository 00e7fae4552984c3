// The worker pool end to end on real PostgreSQL and a local store: orders in, stitched tracks,
// subtitles and settled money out; content policy, fault drills, engine and storage failures;
// the drain on stop and the rescue of a crashed worker's chunk.
#include <gtest/gtest.h>

#include <algorithm>
#include <mutex>
#include <thread>

#include "mediagen/workers/worker_pool.hpp"
#include "unit/engines/mp3_decode.hpp"
#include "workers_fixture.hpp"

namespace mediagen::test {
namespace {

using namespace std::chrono_literals;

// A store whose puts fail, like a full disk.
class FullDisk final : public storage::ObjectStore {
 public:
  explicit FullDisk(storage::ObjectStore& inner) : inner_(inner) {}
  storage::StoreResult<std::unique_ptr<storage::ObjectWriter>> open_writer(std::string_view key) override {
    return storage::StoreError::io("create", key, 28);
  }
  storage::StoreResult<void> put(std::string_view key, std::string_view) override {
    return storage::StoreError::io("put", key, 28);
  }
  storage::StoreResult<std::optional<std::uint64_t>> stat(std::string_view key) override { return inner_.stat(key); }
  storage::StoreResult<std::string> read(std::string_view key, std::uint64_t o, std::uint64_t n) override {
    return inner_.read(key, o, n);
  }
  storage::StoreResult<bool> remove(std::string_view key) override { return inner_.remove(key); }
  storage::StoreResult<std::uint64_t> remove_prefix(std::string_view p) override { return inner_.remove_prefix(p); }

 private:
  storage::ObjectStore& inner_;
};

class WorkersPoolTest : public WorkersTest {
 protected:
  workers::WorkerPoolOptions options() { return pool_options(); }

  ToneSource tone;
};

TEST_F(WorkersPoolTest, OrdersAreSynthesisedStitchedAndChargedOnce) {
  const auto a = make_order({.texts = {"The first part.", "The second part is longer.", "Third."}});
  const auto b = make_order({.texts = {"Another order entirely."}});
  std::mutex m;
  std::vector<orders::OrderChange> events;
  auto o = options();
  o.on_change = [&](const orders::OrderChange& c) {
    std::lock_guard lock(m);
    events.push_back(c);
  };
  workers::WorkerPool pool(o, tone, *store, db_url, counters);
  pool.start();
  ASSERT_TRUE(settled(a.id));
  ASSERT_TRUE(settled(b.id));
  pool.stop();

  for (const auto& order : {a, b}) {
    EXPECT_EQ(order_status(order.id), "completed");
    EXPECT_EQ(escrow(order.id), 0);
    const auto mp3 = read_all("orders/" + order.id + "/result.mp3");
    const auto decoded = engines::testing::decode_mp3(mp3);
    ASSERT_TRUE(decoded.ok) << decoded.error;
    const auto item_sum = number("SELECT sum(duration_ms) FROM order_items WHERE order_id = '" + order.id + "'");
    // Each item's duration is rounded to the millisecond on its own.
    EXPECT_NEAR(static_cast<double>(decoded.duration_ms()), static_cast<double>(item_sum),
                static_cast<double>(order.items.size()) + 1);
    EXPECT_NEAR(static_cast<double>(number("SELECT result_duration_ms FROM orders WHERE id = '" + order.id + "'")),
                static_cast<double>(decoded.duration_ms()), 1);
    EXPECT_EQ(value("SELECT result_service_files::text FROM orders WHERE id = '" + order.id + "'"),
              "[\"orders/" + order.id + "/result.srt\", \"orders/" + order.id + "/result.vtt\", \"orders/" + order.id +
                  "/result.timings.json\"]");
    const auto vtt = read_all("orders/" + order.id + "/result.vtt");
    EXPECT_EQ(vtt.rfind("WEBVTT\n\n", 0), 0u);
    EXPECT_NE(read_all("orders/" + order.id + "/result.srt").find(" --> "), std::string::npos);
  }
  // The second chunk's words are cued after the whole first chunk.
  const auto first_ms = number("SELECT duration_ms FROM order_items WHERE id = '" + a.items[0] + "'");
  const auto srt = read_all("orders/" + a.id + "/result.srt");
  const auto second = srt.find("The second part");
  ASSERT_NE(second, std::string::npos) << srt;
  const auto cue = srt.rfind(" --> ", second);
  const auto start = srt.substr(srt.rfind('\n', cue) + 1, 12);
  const auto ms = std::stoll(start.substr(0, 2)) * 3600000 + std::stoll(start.substr(3, 2)) * 60000 +
                  std::stoll(start.substr(6, 2)) * 1000 + std::stoll(start.substr(9, 3));
  EXPECT_GE(ms, first_ms);
  EXPECT_EQ(tone.calls.load(), 4);
  EXPECT_EQ(number("SELECT count(*) FROM ledger_txns WHERE kind = 'chunk_charge'"), 4);
  EXPECT_EQ(pool.settled_chunks(), 4u);
  // Every transition was reported once, after its commit.
  auto count = [&](orders::OrderChange::Subject subject, const std::string& status) {
    return std::count_if(events.begin(), events.end(),
                         [&](const auto& e) { return e.subject == subject && e.status == status; });
  };
  EXPECT_EQ(count(orders::OrderChange::Subject::item, "processing"), 4);
  EXPECT_EQ(count(orders::OrderChange::Subject::item, "completed"), 4);
  EXPECT_EQ(count(orders::OrderChange::Subject::order, "in_progress"), 2);
  EXPECT_EQ(count(orders::OrderChange::Subject::order, "completed"), 2);
}

TEST_F(WorkersPoolTest, APolicyTermFlagsTheChunkWithoutCallingTheEngine) {
  const auto order = make_order({.texts = {"This is fine.", "This is FORBIDDEN stuff."}});
  auto o = options();
  o.content.policy_terms = {"forbidden"};
  workers::WorkerPool pool(o, tone, *store, db_url, counters);
  pool.start();
  ASSERT_TRUE(settled(order.id));
  pool.stop();
  EXPECT_EQ(order_status(order.id), "partially_completed");
  EXPECT_EQ(item_field(order.items[1], "status"), "policy_flagged");
  EXPECT_EQ(item_field(order.items[1], "failure_reason"), "content_policy");
  EXPECT_EQ(item_field(order.items[0], "status"), "completed");
  EXPECT_EQ(tone.calls.load(), 1);
}

TEST_F(WorkersPoolTest, TheFaultDrillMarkerFailsChunksAndAnOrderWithNothingDoneGetsItsMoneyBack) {
  const auto wallet_before = wallet();
  const auto order = make_order({.texts = {"Boom FAULT-7 one.", "Boom FAULT-7 two."}});
  auto o = options();
  o.content.fail_marker = "FAULT-7";
  workers::WorkerPool pool(o, tone, *store, db_url, counters);
  pool.start();
  ASSERT_TRUE(settled(order.id));
  pool.stop();
  EXPECT_EQ(order_status(order.id), "failed");
  EXPECT_EQ(number("SELECT count(*) FROM order_items WHERE status = 'failed' AND failure_reason = 'engine_error'"), 2);
  EXPECT_EQ(wallet(), wallet_before);
  EXPECT_EQ(tone.calls.load(), 0);
}

TEST_F(WorkersPoolTest, AServiceWithoutAnEngineFailsAsEngineUnavailable) {
  const auto order = make_order({.texts = {"No engine here."}, .engine_request = R"({"engine":"none"})"});
  workers::WorkerPool pool(options(), tone, *store, db_url, counters);
  pool.start();
  ASSERT_TRUE(settled(order.id));
  pool.stop();
  EXPECT_EQ(order_status(order.id), "failed");
  EXPECT_EQ(item_field(order.items[0], "failure_reason"), "engine_unavailable");
}

TEST_F(WorkersPoolTest, AStorageFailureFailsTheChunkAsStorageError) {
  const auto order = make_order({.texts = {"Disk is full.", "Still full."}});
  FullDisk full(*store);
  workers::WorkerPool pool(options(), tone, full, db_url, counters);
  pool.start();
  ASSERT_TRUE(settled(order.id));
  pool.stop();
  EXPECT_EQ(order_status(order.id), "failed");
  EXPECT_EQ(number("SELECT count(*) FROM order_items WHERE failure_reason = 'storage_error' AND result_path IS NULL"), 2);
}

TEST_F(WorkersPoolTest, StopPutsTheChunksInFlightBackInTheQueue) {
  const auto order = make_order({.texts = {"Slow one.", "Slow two."}});
  auto o = options();
  o.engine_delay = 60s;
  {
    workers::WorkerPool pool(o, tone, *store, db_url, counters);
    pool.start();
    ASSERT_TRUE(eventually("SELECT count(*) = 2 FROM order_items WHERE status = 'processing'"));
    pool.stop();
  }
  EXPECT_EQ(number("SELECT count(*) FROM order_items WHERE status = 'pending' AND claims = 0"), 2);
  EXPECT_EQ(order_status(order.id), "pending");
  EXPECT_EQ(number("SELECT count(*) FROM ledger_txns WHERE kind = 'chunk_charge'"), 0);
  EXPECT_EQ(tone.calls.load(), 0);  // the drill's delay ended with the stop; no engine ran after it

  // Another instance picks them up.
  workers::WorkerPool next(options(), tone, *store, db_url, counters);
  next.start();
  ASSERT_TRUE(settled(order.id));
  next.stop();
  EXPECT_EQ(order_status(order.id), "completed");
}

TEST_F(WorkersPoolTest, TheSweeperRescuesTheChunkOfACrashedWorker) {
  const auto order = make_order({.texts = {"Crashed mid chunk.", "Untouched."}});
  {
    // A worker that claims and dies: its lease simply runs out.
    db::Db dead_db(db_url, &counters);
    orders::WorkQueue dead(dead_db);
    ASSERT_TRUE(dead.claim(1ms));
  }
  workers::WorkerPool pool(options(), tone, *store, db_url, counters);
  pool.start();
  ASSERT_TRUE(settled(order.id));
  pool.stop();
  EXPECT_EQ(order_status(order.id), "completed");
  EXPECT_EQ(item_field(order.items[0], "claims"), "2");
  EXPECT_EQ(number("SELECT count(*) FROM ledger_txns WHERE kind = 'chunk_charge'"), 2);
}

TEST_F(WorkersPoolTest, RealSpeechFromEspeakIsStitchedToTheSumOfItsChunks) {
  const auto order = make_order({.texts = {"Hello from the first chunk.", "And this is the second one."}});
  engines::EspeakEngine espeak;
  workers::EspeakSource speech(espeak);
  workers::WorkerPool pool(options(), speech, *store, db_url, counters);
  pool.start();
  ASSERT_TRUE(settled(order.id));
  pool.stop();
  ASSERT_EQ(order_status(order.id), "completed");
  const auto decoded = engines::testing::decode_mp3(read_all("orders/" + order.id + "/result.mp3"));
  ASSERT_TRUE(decoded.ok) << decoded.error;
  const auto item_sum = number("SELECT sum(duration_ms) FROM order_items WHERE order_id = '" + order.id + "'");
  EXPECT_GT(item_sum, 1000);
  EXPECT_NEAR(static_cast<double>(decoded.duration_ms()), static_cast<double>(item_sum), 3);
  EXPECT_NE(read_all("orders/" + order.id + "/result.vtt").find("second"), std::string::npos);
}

}  // namespace
}  // namespace mediagen::test
