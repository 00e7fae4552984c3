// Sound effects and music through the worker pool on real PostgreSQL, the real engines and a
// local store: each chunk makes one file, the result lists them in chunk order (nothing joined),
// each chunk is charged once; an engine the pool lacks fails the chunk and returns its money.
#include <gtest/gtest.h>

#include "mediagen/engines/music.hpp"
#include "mediagen/engines/sfx.hpp"
#include "mediagen/workers/worker_pool.hpp"
#include "unit/engines/mp3_decode.hpp"
#include "workers_fixture.hpp"

namespace mediagen::test {
namespace {

using namespace std::chrono_literals;

class WorkersGenerativeTest : public WorkersTest {
 protected:
  workers::WorkerPoolOptions options() {
    auto o = pool_options();
    o.lease = std::chrono::seconds(30);  // a music render under the sanitizers takes seconds
    o.prompt_engines = {{"sfx", &sfx}, {"music", &music}};
    return o;
  }

  static std::string request(std::string_view engine, std::int64_t ms, int seed) {
    return R"({"engine":")" + std::string(engine) + R"(","duration_ms":)" + std::to_string(ms) + R"(,"seed":)" +
           std::to_string(seed) + "}";
  }

  ToneSource tone;
  engines::SfxEngine sfx;
  engines::MusicEngine music{std::string(engines::kDefaultSoundfont)};
};

TEST_F(WorkersGenerativeTest, MusicVariantsAreListedInChunkOrderEachItsOwnSeed) {
  const auto order = make_order({.texts = {"calm piano", "calm piano", "calm piano"},
                                 .tokens = {5, 5, 5},
                                 .task_type = "music",
                                 .engine_request = request("music", 5000, 11)});
  const auto before = wallet();
  workers::WorkerPool pool(options(), tone, *store, db_url, counters);
  pool.start();
  ASSERT_TRUE(settled(order.id));
  pool.stop();
  ASSERT_EQ(order_status(order.id), "completed");
  std::vector<std::string> paths;
  for (const auto& item : order.items) paths.push_back(item_field(item, "result_path"));
  EXPECT_EQ(value("SELECT result_files::text FROM orders WHERE id = '" + order.id + "'"),
            R"([")" + paths[0] + R"(", ")" + paths[1] + R"(", ")" + paths[2] + R"("])");
  EXPECT_EQ(value("SELECT result_service_files::text FROM orders WHERE id = '" + order.id + "'"), "[]");
  std::vector<std::string> files;
  for (const auto& p : paths) {
    files.push_back(read_all(p));
    const auto decoded = engines::testing::decode_mp3(files.back());
    ASSERT_TRUE(decoded.ok) << decoded.error;
    EXPECT_EQ(decoded.channels, 2);
    EXPECT_NEAR(static_cast<double>(decoded.duration_ms()), 5000.0, 100.0);
  }
  EXPECT_NE(files[0], files[1]);
  EXPECT_NE(files[1], files[2]);
  EXPECT_EQ(wallet(), before);  // the lock was the charge: nothing comes back
  EXPECT_EQ(escrow(order.id), 0);
  EXPECT_EQ(number("SELECT count(*) FROM ledger_txns WHERE kind = 'chunk_charge' AND order_id = '" + order.id + "'"),
            3);
}

TEST_F(WorkersGenerativeTest, ASoundEffectIsOneFileAtItsLength) {
  const auto order = make_order({.texts = {"door knock"}, .tokens = {2}, .task_type = "sfx",
                                 .engine_request = request("sfx", 1500, 3)});
  workers::WorkerPool pool(options(), tone, *store, db_url, counters);
  pool.start();
  ASSERT_TRUE(settled(order.id));
  pool.stop();
  ASSERT_EQ(order_status(order.id), "completed");
  const auto path = item_field(order.items[0], "result_path");
  EXPECT_EQ(value("SELECT result_files::text FROM orders WHERE id = '" + order.id + "'"), R"([")" + path + R"("])");
  const auto decoded = engines::testing::decode_mp3(read_all(path));
  ASSERT_TRUE(decoded.ok) << decoded.error;
  EXPECT_NEAR(static_cast<double>(decoded.duration_ms()), 1500.0, 30.0);
  EXPECT_EQ(tone.calls.load(), 0);
}

TEST_F(WorkersGenerativeTest, AnEngineThePoolLacksFailsTheChunkAndReturnsTheMoney) {
  const auto order = make_order({.texts = {"rain"}, .tokens = {3}, .task_type = "sfx",
                                 .engine_request = request("synth9000", 3000, 1)});
  const auto before = wallet();
  workers::WorkerPool pool(options(), tone, *store, db_url, counters);
  pool.start();
  ASSERT_TRUE(settled(order.id));
  pool.stop();
  EXPECT_EQ(order_status(order.id), "failed");
  EXPECT_EQ(item_field(order.items[0], "failure_reason"), "engine_unavailable");
  EXPECT_EQ(wallet(), before + order.price_units);
}

}  // namespace
}  // namespace mediagen::test
