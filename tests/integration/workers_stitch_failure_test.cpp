// A stitch that fails is an outcome: retried a bounded number of times, then the order gives up
// with its money returned, the reason on the order and in its change note; no result path ever
// points at a missing or partial file. On real PostgreSQL and a local store (a 4 MiB tmpfs when
// the test may mount one).
#include <stdexcept>
#include <gtest/gtest.h>
#include <sys/mount.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <filesystem>

#include "mediagen/core/uuid.hpp"
#include "mediagen/engines/audio.hpp"
#include "mediagen/engines/speech.hpp"
#include "mediagen/orders/order.hpp"
#include "mediagen/workers/stitcher.hpp"
#include "unit/engines/mp3_decode.hpp"
#include "workers_fixture.hpp"

namespace mediagen::test {
namespace {

using namespace std::chrono_literals;

// Writes through the local store until `full` is set; then every write fails as on a full disk,
// after the writer made its temporary file (which the writer must remove).
class FillingStore final : public storage::ObjectStore {
 public:
  explicit FillingStore(storage::ObjectStore& inner) : inner_(inner) {}

  storage::StoreResult<std::unique_ptr<storage::ObjectWriter>> open_writer(std::string_view key) override {
    auto writer = inner_.open_writer(key);
    if (!writer) return writer.error();
    return std::unique_ptr<storage::ObjectWriter>(std::make_unique<Writer>(std::move(*writer), full));
  }
  storage::StoreResult<void> put(std::string_view key, std::string_view bytes) override {
    if (full) return storage::StoreError::io("write", key, ENOSPC);
    return inner_.put(key, bytes);
  }
  storage::StoreResult<std::optional<std::uint64_t>> stat(std::string_view key) override { return inner_.stat(key); }
  storage::StoreResult<std::string> read(std::string_view key, std::uint64_t o, std::uint64_t n) override {
    return inner_.read(key, o, n);
  }
  storage::StoreResult<bool> remove(std::string_view key) override { return inner_.remove(key); }
  storage::StoreResult<std::uint64_t> remove_prefix(std::string_view p) override { return inner_.remove_prefix(p); }

  bool full = false;

 private:
  class Writer final : public storage::ObjectWriter {
   public:
    Writer(std::unique_ptr<storage::ObjectWriter> inner, const bool& full) : inner_(std::move(inner)), full_(full) {}
    storage::StoreResult<void> write(std::string_view bytes) override {
      if (full_) return storage::StoreError::io("write", "", ENOSPC);
      return inner_->write(bytes);
    }
    storage::StoreResult<void> commit() override { return inner_->commit(); }
    std::uint64_t written() const override { return inner_->written(); }

   private:
    std::unique_ptr<storage::ObjectWriter> inner_;
    const bool& full_;
  };
  storage::ObjectStore& inner_;
};

class WorkersStitchFailureTest : public WorkersTest {
 protected:
  void SetUp() override {
    WorkersTest::SetUp();
    if (HasFatalFailure()) return;
    queue.emplace(*db, orders::QueueOptions{.stitch_lease = 30s, .stitch_retry_delay = 0ms});
  }
  void TearDown() override {
    queue.reset();
    WorkersTest::TearDown();
  }

  // `ms` milliseconds of tone as a chunk's MP3.
  static std::string tone_mp3(int ms) {
    engines::SpeechPcm pcm;
    pcm.sample_rate = 22050;
    pcm.samples.assign(static_cast<std::size_t>(22050LL * ms / 1000), 3000);
    return engines::finish_chunk(std::move(pcm)).value().mp3;
  }

  // Every chunk of the order claimed and completed with `mp3` stored under its own key in
  // `target`; the stitch job the last completion started.
  orders::StitchJob complete_all(const FixtureOrder& order, storage::ObjectStore& target, const std::string& mp3) {
    std::optional<orders::StitchJob> job;
    for (std::size_t i = 0; i < order.items.size(); ++i) {
      auto c = queue->claim(30s);
      if (!c) throw std::runtime_error("a chunk of the order was not handed out");
      const std::string key = "orders/" + order.id + "/items/" + c->item_id.str() + ".mp3";
      EXPECT_TRUE(target.put(key, mp3).has_value());
      auto settled = queue->complete(c->item_id, c->lease_token,
                                     {key, static_cast<std::int64_t>(mp3.size()), *engines::mp3_duration_ms(mp3), "[]"});
      if (settled.stitch) job = settled.stitch;
    }
    if (!job) throw std::runtime_error("the order was not handed to the stitcher");
    return *job;
  }

  // Stitches until the order gives up (at most kMaxStitchAttempts attempts): every attempt after
  // the first is the sweeper's hand-out. The change notes of every attempt go to `changes`.
  std::vector<workers::StitchOutcome> stitch_until_done(storage::ObjectStore& target, orders::StitchJob job,
                                                        std::vector<orders::OrderChange>& changes) {
    workers::Stitcher stitcher(target);
    std::vector<workers::StitchOutcome> outcomes;
    for (int attempt = 1; attempt <= orders::kMaxStitchAttempts + 1; ++attempt) {
      outcomes.push_back(stitcher.stitch(*queue, job, &changes));
      if (outcomes.back() != workers::StitchOutcome::retry) break;
      auto jobs = queue->expired_stitches(20, &changes);
      if (jobs.size() != 1) break;
      job = jobs[0];
    }
    return outcomes;
  }

  // No temporary file of a writer is left anywhere under the store's root.
  std::vector<std::string> leftovers(const std::filesystem::path& dir) {
    std::vector<std::string> found;
    for (const auto& entry : std::filesystem::recursive_directory_iterator(dir)) {
      if (entry.path().filename().string().find('~') != std::string::npos) found.push_back(entry.path().string());
    }
    return found;
  }

  // The order failed because its stitch gave up, and it cost the user nothing.
  void expect_given_up_and_returned(const FixtureOrder& order, std::int64_t wallet_before,
                                    std::int64_t quota_before, const std::vector<orders::OrderChange>& changes,
                                    storage::ObjectStore* target = nullptr) {
    EXPECT_EQ(order_status(order.id), "failed");
    EXPECT_EQ(value("SELECT failure_reason FROM orders WHERE id = '" + order.id + "'"), "stitch_failed");
    EXPECT_EQ(value("SELECT stitch_token IS NULL AND stitch_until IS NULL FROM orders WHERE id = '" + order.id + "'"),
              "t");
    EXPECT_EQ(value("SELECT result_files::text FROM orders WHERE id = '" + order.id + "'"), "[]");
    EXPECT_EQ(escrow(order.id), 0);
    EXPECT_EQ(quota_escrow(order.id), 0);
    EXPECT_EQ(wallet(), wallet_before);
    EXPECT_EQ(quota(), quota_before);
    EXPECT_EQ(number("SELECT count(*) FROM ledger_txns WHERE kind = 'charge_refund' AND order_id = '" + order.id + "'"),
              static_cast<std::int64_t>(order.items.size()));
    const auto failed = std::count_if(changes.begin(), changes.end(), [&](const orders::OrderChange& c) {
      return c.subject == orders::OrderChange::Subject::order && c.id == order.id && c.status == "failed";
    });
    EXPECT_EQ(failed, 1);
    for (const auto* name : {"result.mp3", "result.srt", "result.vtt"}) {
      EXPECT_FALSE((target ? *target : *store).stat("orders/" + order.id + "/" + name).value().has_value()) << name;
    }
    EXPECT_TRUE(invariant_violations(db_url).empty());
  }

  std::optional<orders::WorkQueue> queue;
};

using workers::StitchOutcome;

// A 4 MiB tmpfs mounted for one test, unmounted when it ends (mounting needs CAP_SYS_ADMIN).
class SmallDisk {
 public:
  SmallDisk() : dir_(std::filesystem::temp_directory_path() / ("mg_small_disk_" + random_hex())) {
    std::filesystem::create_directories(dir_);
    mounted_ = ::mount("tmpfs", dir_.c_str(), "tmpfs", MS_NOSUID | MS_NODEV, "size=4m") == 0;
    error_ = errno;
  }
  ~SmallDisk() {
    if (mounted_) ::umount2(dir_.c_str(), MNT_DETACH);
    std::error_code ec;
    std::filesystem::remove_all(dir_, ec);
  }
  SmallDisk(const SmallDisk&) = delete;
  SmallDisk& operator=(const SmallDisk&) = delete;
  bool mounted() const { return mounted_; }
  int error() const { return error_; }
  const std::filesystem::path& dir() const { return dir_; }

 private:
  std::filesystem::path dir_;
  bool mounted_ = false;
  int error_ = 0;
};

TEST_F(WorkersStitchFailureTest, APartDeletedBeforeTheStitchFailsTheOrderAfterItsAttemptsWithEverythingReturned) {
  grant_quota(20);
  const auto wallet_before = wallet();
  const auto quota_before = quota();
  const auto order = make_order({.texts = {"First part here.", "Second part here.", "Third."}});
  const auto job = complete_all(order, *store, tone_mp3(400));
  ASSERT_EQ(job.order_id, order.id);
  EXPECT_LT(wallet(), wallet_before);  // the chunks were charged
  ASSERT_TRUE(store->remove("orders/" + order.id + "/items/" + order.items[1] + ".mp3").value());

  std::vector<orders::OrderChange> changes;
  const auto outcomes = stitch_until_done(*store, job, changes);
  EXPECT_EQ(outcomes, (std::vector{StitchOutcome::retry, StitchOutcome::retry, StitchOutcome::gave_up}));
  expect_given_up_and_returned(order, wallet_before, quota_before, changes);
  EXPECT_TRUE(leftovers(root).empty());
  // Nothing is handed out any more, and the failed order is not stitched again.
  EXPECT_TRUE(queue->expired_stitches().empty());
}

TEST_F(WorkersStitchFailureTest, AFullDiskFailsTheStitchWithoutAPartialFileAndANewOrderCompletesWithSpaceBack) {
  FillingStore disk(*store);
  const auto wallet_before = wallet();
  const auto order = make_order({.texts = {"Audio one.", "Audio two."}});
  const auto job = complete_all(order, disk, tone_mp3(600));
  disk.full = true;
  std::vector<orders::OrderChange> changes;
  const auto outcomes = stitch_until_done(disk, job, changes);
  EXPECT_EQ(outcomes.back(), StitchOutcome::gave_up);
  EXPECT_EQ(outcomes.size(), static_cast<std::size_t>(orders::kMaxStitchAttempts));
  expect_given_up_and_returned(order, wallet_before, 0, changes);
  EXPECT_TRUE(leftovers(root).empty()) << leftovers(root).front();

  disk.full = false;
  const auto next = make_order({.texts = {"Space is back.", "So this one works."}});
  const auto mp3 = tone_mp3(500);
  const auto next_job = complete_all(next, disk, mp3);
  workers::Stitcher stitcher(disk);
  ASSERT_EQ(stitcher.stitch(*queue, next_job), StitchOutcome::completed);
  EXPECT_EQ(order_status(next.id), "completed");
  EXPECT_EQ(value("SELECT failure_reason IS NULL FROM orders WHERE id = '" + next.id + "'"), "t");
  // Every listed result path is a whole file: the track decodes to its recorded length.
  const auto key = "orders/" + next.id + "/result.mp3";
  const auto size = store->stat(key).value();
  ASSERT_TRUE(size.has_value());
  const auto decoded = engines::testing::decode_mp3(store->read(key, 0, *size).value());
  ASSERT_TRUE(decoded.ok) << decoded.error;
  EXPECT_NEAR(static_cast<double>(decoded.duration_ms()),
              static_cast<double>(number("SELECT result_duration_ms FROM orders WHERE id = '" + next.id + "'")), 1);
  for (const auto* ext : {"srt", "vtt"}) {
    EXPECT_TRUE(store->stat("orders/" + next.id + "/result." + ext).value().has_value()) << ext;
  }
}

// T10: the store on a 4 MiB tmpfs; the parts fit, the track does not.
TEST_F(WorkersStitchFailureTest, OnAFullTmpfsTheOrderGivesUpWithoutPartialFilesAndWithSpaceBackANewOneCompletes) {
  SmallDisk disk;
  if (!disk.mounted()) GTEST_SKIP() << "cannot mount a tmpfs here: " << std::strerror(disk.error());
  auto opened = storage::LocalStore::open(disk.dir().string());
  ASSERT_TRUE(opened.has_value());
  storage::LocalStore small = std::move(*opened);
  const auto wallet_before = wallet();
  const auto big = make_order({.texts = {"Long audio one.", "Long audio two."}});
  const auto part = tone_mp3(140'000);  // about 1.1 MB: two fit in 4 MiB, their track does not
  const auto job = complete_all(big, small, part);
  std::vector<orders::OrderChange> changes;
  EXPECT_EQ(stitch_until_done(small, job, changes).back(), StitchOutcome::gave_up);
  expect_given_up_and_returned(big, wallet_before, 0, changes, &small);
  EXPECT_TRUE(leftovers(disk.dir()).empty());

  // Space back: the failed order's chunk files go; a new order fits and completes.
  ASSERT_EQ(small.remove_prefix("orders/" + big.id + "/").value(), 2u);
  const auto next = make_order({.texts = {"Short one.", "Short two."}});
  const auto next_job = complete_all(next, small, tone_mp3(20'000));
  workers::Stitcher stitcher(small);
  ASSERT_EQ(stitcher.stitch(*queue, next_job), StitchOutcome::completed);
  EXPECT_EQ(order_status(next.id), "completed");
  const auto size = small.stat("orders/" + next.id + "/result.mp3").value();
  ASSERT_TRUE(size.has_value());
  const auto frames = engines::scan_mp3(small.read("orders/" + next.id + "/result.mp3", 0, *size).value());
  ASSERT_TRUE(frames.has_value());  // whole frames to the last byte
  EXPECT_EQ(frames->duration_ms, number("SELECT result_duration_ms FROM orders WHERE id = '" + next.id + "'"));
  EXPECT_TRUE(leftovers(disk.dir()).empty());
}

TEST_F(WorkersStitchFailureTest, AStitchWhoseLastAttemptDiedIsGivenUpByTheSweeper) {
  const auto wallet_before = wallet();
  const auto order = make_order({.texts = {"Crashes the stitcher."}});
  const auto job = complete_all(order, *store, tone_mp3(300));
  // Every attempt's stitcher dies: nobody reports a failure, the leases just run out.
  for (int attempt = 1; attempt < orders::kMaxStitchAttempts; ++attempt) {
    value("UPDATE orders SET stitch_until = now() - interval '1 second' WHERE id = '" + order.id + "'");
    ASSERT_EQ(queue->expired_stitches().size(), 1u) << attempt;
  }
  EXPECT_EQ(number("SELECT stitch_attempts FROM orders WHERE id = '" + order.id + "'"), orders::kMaxStitchAttempts);
  value("UPDATE orders SET stitch_until = now() - interval '1 second' WHERE id = '" + order.id + "'");
  std::vector<orders::OrderChange> changes;
  EXPECT_TRUE(queue->expired_stitches(20, &changes).empty());
  expect_given_up_and_returned(order, wallet_before, 0, changes);
  // The first stitcher wakes up late: its token holds nothing any more.
  workers::Stitcher stitcher(*store);
  EXPECT_EQ(stitcher.stitch(*queue, job), StitchOutcome::lost);
}

TEST_F(WorkersStitchFailureTest, AFinishedOrderWhoseReStitchGivesUpKeepsItsResultAndGetsTheRegenerationBack) {
  const auto order = make_order({.texts = {"Finished once."}});
  const auto job = complete_all(order, *store, tone_mp3(300));
  workers::Stitcher stitcher(*store);
  ASSERT_EQ(stitcher.stitch(*queue, job), StitchOutcome::completed);
  const auto files = value("SELECT result_files::text FROM orders WHERE id = '" + order.id + "'");
  const auto track = store->read("orders/" + order.id + "/result.mp3", 0, 1 << 20).value();
  const auto wallet_finished = wallet();

  // A paid regeneration of position 0 completes, but its audio is gone before the re-stitch.
  const auto regen = value(
      "WITH ins AS (INSERT INTO order_items (order_id, item_type, chunk_index, parent_item_id, original_text_length,"
      " current_text_length, free_length, billable_length, max_billable_length, max_raw_length, raw_length,"
      " capacity_unit, price_units, payg_minor, remaining_locked)"
      " SELECT order_id, 'regeneration', 0, id, 14, 6, 6, 6, 14, 5000, 6, 'chars', 6, 9, 6"
      " FROM order_items WHERE id = '" + order.items[0] + "' RETURNING id),"
      " t AS (INSERT INTO order_item_texts SELECT id, 'Again.' FROM ins) SELECT id::text FROM ins");
  db::transact(*db, [&](db::Tx& tx) {
    orders::lock_item(*db, tx, {.user = user, .order_id = order.id, .money = money, .tokens = tokens}, regen,
                      {.quota_tokens = 0, .minor = 9});
  });
  auto r = queue->claim(30s);
  ASSERT_TRUE(r);
  ASSERT_EQ(r->item_id, regen);
  const auto settled = queue->complete(r->item_id, r->lease_token, {"orders/" + order.id + "/items/gone.mp3", 1, 1, "[]"});
  ASSERT_TRUE(settled.stitch);
  EXPECT_EQ(wallet(), wallet_finished - 9);

  std::vector<orders::OrderChange> changes;
  EXPECT_EQ(stitch_until_done(*store, *settled.stitch, changes),
            (std::vector{StitchOutcome::retry, StitchOutcome::retry, StitchOutcome::gave_up}));
  EXPECT_EQ(order_status(order.id), "completed");
  EXPECT_EQ(value("SELECT failure_reason FROM orders WHERE id = '" + order.id + "'"), "stitch_failed");
  EXPECT_EQ(value("SELECT result_files::text FROM orders WHERE id = '" + order.id + "'"), files);
  EXPECT_EQ(store->read("orders/" + order.id + "/result.mp3", 0, 1 << 20).value(), track);
  EXPECT_EQ(wallet(), wallet_finished);  // the regeneration is returned, the delivered chunk is not
  EXPECT_EQ(value("SELECT string_agg(reference, ',') FROM ledger_txns WHERE kind = 'charge_refund'"), regen);
  EXPECT_TRUE(std::any_of(changes.begin(), changes.end(), [&](const orders::OrderChange& c) {
    return c.id == order.id && c.status == "completed";
  }));
}

TEST_F(WorkersStitchFailureTest, OnlyTheHolderOfTheStitchTokenMayFailIt) {
  const auto order = make_order({.texts = {"Fenced."}});
  const auto job = complete_all(order, *store, tone_mp3(300));
  const orders::StitchJob stranger{job.order_id, LeaseToken::fresh()};
  EXPECT_EQ(queue->fail_stitch(stranger), orders::StitchFailed::lost);
  EXPECT_EQ(number("SELECT stitch_attempts FROM orders WHERE id = '" + order.id + "'"), 1);
  workers::Stitcher stitcher(*store);
  EXPECT_EQ(stitcher.stitch(*queue, job), StitchOutcome::completed);
  EXPECT_EQ(queue->fail_stitch(job), orders::StitchFailed::lost);
  EXPECT_EQ(order_status(order.id), "completed");
}

}  // namespace
}  // namespace mediagen::test
