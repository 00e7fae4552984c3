// What uploads share so no client starves the others: the budget taken as bytes arrive, the
// per-key cap, and the minimum pace, on a clock the test moves (no sleeps, no sockets).
#include <gtest/gtest.h>

#include <boost/asio/co_spawn.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/use_future.hpp>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "http/stages/stages.hpp"
#include "integration/stepped_clock.hpp"
#include "mediagen/http/envelope.hpp"
#include "mediagen/http/uploads.hpp"
#include "unit/http/run_sync.hpp"

namespace mediagen::http {
namespace {

using namespace std::chrono_literals;
using std::chrono::milliseconds;

const TimePoint kStart = TimePoint{} + std::chrono::hours(1000);

// 1 KiB/s over 4 s after a grace of 2 s: a window must hold 4096 bytes, judged from 6 s on.
UploadPaceRule small_rule() { return {.min_bytes_per_second = 1024, .window = 4s, .grace = 2s}; }

// ---- the budget ----

TEST(UploadBudgetLease, GrowsPieceByPieceAndRefusesOnlyThePieceThatDoesNotFit) {
  UploadBudget budget(100);
  auto a = budget.lease();
  EXPECT_EQ(budget.in_use(), 0u);  // nothing is taken before a byte arrives
  EXPECT_TRUE(a.grow(30));
  EXPECT_TRUE(a.grow(30));
  auto b = budget.lease();
  EXPECT_TRUE(b.grow(40));
  EXPECT_FALSE(b.grow(1));
  EXPECT_EQ(a.bytes(), 60u);
  EXPECT_EQ(b.bytes(), 40u);
  EXPECT_EQ(budget.in_use(), 100u);
  {
    auto moved = std::move(a);
    EXPECT_EQ(budget.in_use(), 100u);
  }
  EXPECT_EQ(budget.in_use(), 40u);
  EXPECT_TRUE(b.grow(60));
  EXPECT_FALSE(b.grow(std::size_t(-1)));
  EXPECT_EQ(budget.in_use(), 100u);
}

// ---- uploads per key ----

TEST(UploadSlots, LetsAKeyHaveItsShareAndNoMore) {
  UploadSlots slots(2);
  const ApiKeyId one{1}, two{2};
  auto a = slots.enter(one);
  auto b = slots.enter(one);
  ASSERT_TRUE(a && b);
  EXPECT_FALSE(slots.enter(one).has_value());
  auto c = slots.enter(two);  // another key is not held back by this one
  ASSERT_TRUE(c);
  EXPECT_EQ(slots.open(), 3u);
  a.reset();
  EXPECT_EQ(slots.open(), 2u);
  auto d = slots.enter(one);
  EXPECT_TRUE(d.has_value());
  EXPECT_FALSE(slots.enter(one).has_value());
  b.reset();
  c.reset();
  d.reset();
  EXPECT_EQ(slots.open(), 0u);
}

// ---- the pace ----

TEST(UploadPace, JudgesNothingBeforeGracePlusWindow) {
  test::SteppedClock clock(kStart);
  UploadPace pace(small_rule(), clock);
  EXPECT_EQ(pace.patience(), milliseconds(6000));
  clock.advance(5999ms);
  EXPECT_FALSE(pace.too_slow());
  EXPECT_EQ(pace.patience(), milliseconds(1));
  clock.advance(1ms);
  EXPECT_TRUE(pace.too_slow());
  EXPECT_EQ(pace.patience(), milliseconds(0));
}

TEST(UploadPace, CutsATrickleAtGracePlusWindow) {
  test::SteppedClock clock(kStart);
  UploadPace pace(small_rule(), clock);
  // A byte every half second: the stall timer of the server never fires, the pace does.
  bool cut = false;
  int steps = 0;
  while (!cut && steps < 100) {
    clock.advance(500ms);
    pace.arrived(1);
    cut = pace.too_slow();
    ++steps;
  }
  EXPECT_TRUE(cut);
  EXPECT_EQ(steps, 12);  // 6 s
}

TEST(UploadPace, KeepsAnUploadAtTheMinimumForAsLongAsItTakes) {
  test::SteppedClock clock(kStart);
  UploadPace pace(small_rule(), clock);
  for (int second = 0; second < 3600; ++second) {
    clock.advance(1s);
    pace.arrived(1024);
    ASSERT_FALSE(pace.too_slow()) << second;
    // Were it to stop now, it would be cut once the window no longer holds enough.
    ASSERT_GT(pace.patience(), milliseconds(0)) << second;
  }
}

TEST(UploadPace, AveragesOverTheWindowSoABurstCarriesASilence) {
  test::SteppedClock clock(kStart);
  UploadPace pace(small_rule(), clock);
  clock.advance(3s);
  pace.arrived(8192);  // two windows' worth at 3 s
  clock.advance(3s);   // 6 s: judged; the burst is in the window (2 s .. 6 s)
  EXPECT_FALSE(pace.too_slow());
  // Nothing more: the burst leaves the window at 3 s + 4 s.
  EXPECT_EQ(pace.patience(), milliseconds(1000));
  clock.advance(999ms);
  EXPECT_FALSE(pace.too_slow());
  clock.advance(1ms);
  EXPECT_TRUE(pace.too_slow());
}

TEST(UploadPace, ABurstDuringTheGraceDoesNotExcuseASilenceAfterIt) {
  test::SteppedClock clock(kStart);
  UploadPace pace(small_rule(), clock);
  clock.advance(1s);
  pace.arrived(1 << 20);
  clock.advance(5s);  // 6 s: the window (2 s .. 6 s) holds nothing
  EXPECT_TRUE(pace.too_slow());
}

TEST(UploadPace, PatienceIsWhenTheWindowFallsShort) {
  test::SteppedClock clock(kStart);
  UploadPace pace(small_rule(), clock);
  clock.advance(6s);
  pace.arrived(2048);
  clock.advance(1s);
  pace.arrived(2048);
  clock.advance(1s);
  pace.arrived(2048);  // 8 s: 6144 bytes in the window, 4096 needed
  // The first 2048 leave at 10 s, leaving 4096: enough; the next leave at 11 s.
  EXPECT_EQ(pace.patience(), milliseconds(3000));
  clock.advance(2999ms);
  EXPECT_FALSE(pace.too_slow());
  clock.advance(1ms);
  EXPECT_TRUE(pace.too_slow());
}

TEST(UploadPace, ARuleWithoutMinimumNeverCuts) {
  test::SteppedClock clock(kStart);
  UploadPace pace({.min_bytes_per_second = 0, .window = 1s, .grace = 0s}, clock);
  clock.advance(std::chrono::hours(5));
  EXPECT_FALSE(pace.too_slow());
  EXPECT_GE(pace.patience(), milliseconds(std::chrono::hours(1)));
}

TEST(UploadPace, ManyTinyPiecesKeepTheMeterSmallAndExact) {
  test::SteppedClock clock(kStart);
  UploadPace pace(small_rule(), clock);
  // 100,000 pieces of 1 byte every 0.1 ms: 10 MB/s worth of calls, 10 s long.
  for (int i = 0; i < 100000; ++i) {
    clock.advance(std::chrono::microseconds(100));
    pace.arrived(1);
  }
  // 10,000 bytes a second: far above the minimum.
  EXPECT_FALSE(pace.too_slow());
  EXPECT_GT(pace.patience(), milliseconds(3000));
}

// ---- the body stage with the pace and the cap ----

class Request final : public RequestView {
 public:
  std::string content_type;
  Method method() const override { return Method::post; }
  std::string_view method_text() const override { return "POST"; }
  std::string_view target() const override { return "/upload"; }
  std::optional<std::string_view> header(std::string_view name) const override {
    if (name == "Content-Type") return std::string_view(content_type);
    return std::nullopt;
  }
  std::string_view body() const override { return {}; }
};

// Hands the pieces over one by one, the clock moved before each; a wait longer than the reader's
// patience ends the reading as the server's exchange does.
class PacedExchange final : public Exchange {
 public:
  struct Step {
    milliseconds after;
    std::string piece;
  };
  Request request_;
  std::vector<Step> steps;
  test::SteppedClock* clock = nullptr;
  int reads = 0;

  const RequestView& request() const override { return request_; }
  std::string_view peer_ip() const override { return "127.0.0.1"; }
  std::optional<std::uint64_t> content_length() const override { return std::nullopt; }
  bool has_body() const override { return true; }
  boost::asio::awaitable<BodyStatus> read_body(std::size_t) override { co_return BodyStatus::failed; }
  boost::asio::awaitable<BodyStatus> read_body_pieces(std::size_t, BodyPieceSink sink, BodyPatience patience) override {
    ++reads;
    for (const Step& step : steps) {
      if (patience && patience() < step.after) {
        clock->advance(patience());
        co_return BodyStatus::timed_out;
      }
      clock->advance(step.after);
      if (!sink(step.piece)) co_return BodyStatus::stopped;
    }
    co_return BodyStatus::ok;
  }
};

nlohmann::json error_json(const ApiError& e) { return nlohmann::json::parse(error_body(e, Locale::en, TimeZone::utc())); }

class PacedUpload : public ::testing::Test {
 protected:
  PacedUpload() {
    route.method = Method::post;
    route.pattern = "/upload";
    route.body_limit = 1 << 20;
    route.multipart_body = true;
    ex.request_.content_type = "multipart/form-data; boundary=b";
    ex.clock = &clock;
    auto principal = std::make_shared<auth::Principal>();
    principal->key_id = ApiKeyId{7};
    ctx.principal = principal;
    ctx.route = &route;
  }

  Result<void> read() { return testing::run_sync(stages::read_body(ctx, ex, target, uploads)); }

  test::SteppedClock clock{kStart};
  Uploads uploads{UploadOptions{.budget_bytes = 1 << 20, .per_key = 2, .pace = small_rule()}, clock};
  Route route;
  PacedExchange ex;
  RequestContext ctx{ex.request_};
  stages::BodyTarget target;
};

const std::string kHead = "--b\r\nContent-Disposition: form-data; name=\"f\"; filename=\"a.wav\"\r\n\r\n";
const std::string kTail = "\r\n--b--\r\n";

TEST_F(PacedUpload, AnUploadAtANormalPaceIsRead) {
  ex.steps = {{0ms, kHead}};
  for (int i = 0; i < 20; ++i) ex.steps.push_back({500ms, std::string(2048, 'a')});
  ex.steps.push_back({0ms, kTail});
  ASSERT_TRUE(read().has_value());
  ASSERT_NE(ctx.form, nullptr);
  EXPECT_EQ(ctx.form->first("f")->size, 20u * 2048);
  EXPECT_EQ(uploads.budget.in_use(), kHead.size() + 20 * 2048 + kTail.size());
}

TEST_F(PacedUpload, ATrickleIsCutWith408AndTheConnectionClosed) {
  ex.steps = {{0ms, kHead}};
  for (int i = 0; i < 100; ++i) ex.steps.push_back({500ms, "a"});
  auto r = read();
  ASSERT_FALSE(r.has_value());
  EXPECT_EQ(r.error().status, 408);
  EXPECT_TRUE(r.error().close_connection);
  const auto b = error_json(r.error());
  EXPECT_EQ(b["success"], false);
  EXPECT_EQ(b["message"], "The upload arrived too slowly and was stopped; send it again on a faster connection.");
  EXPECT_EQ(clock.now() - kStart, std::chrono::seconds(6));
  EXPECT_EQ(ctx.form, nullptr);
}

TEST_F(PacedUpload, ASilenceIsCutWhenThePatienceRunsOut) {
  ex.steps = {{0ms, kHead}, {1s, std::string(5000, 'a')}, {std::chrono::minutes(10), kTail}};
  auto r = read();
  ASSERT_FALSE(r.has_value());
  EXPECT_EQ(r.error().status, 408);
  // 5000 bytes at 1 s carry the window until they leave it at 5 s; judged from 6 s.
  EXPECT_EQ(clock.now() - kStart, std::chrono::seconds(6));
}

TEST_F(PacedUpload, AThirdUploadOfOneKeyIs429BeforeItsBodyIsRead) {
  auto first = uploads.slots.enter(ApiKeyId{7});
  auto second = uploads.slots.enter(ApiKeyId{7});
  ex.steps = {{0ms, kHead + "x" + kTail}};
  auto r = read();
  ASSERT_FALSE(r.has_value());
  EXPECT_EQ(ex.reads, 0);
  EXPECT_EQ(r.error().status, 429);
  const auto b = error_json(r.error());
  EXPECT_EQ(b["reason"], "rate_limit_exceeded");
  EXPECT_EQ(b["retry_after"], 5);
  EXPECT_EQ(b["uploads_per_key"], 2);
  EXPECT_EQ(b["message"], "This API key already has as many uploads in progress as it may; retry when one ends.");
  bool retry_after = false;
  for (const auto& [name, value] : r.error().headers) retry_after = retry_after || (name == "Retry-After" && value == "5");
  EXPECT_TRUE(retry_after);
  // The key's slot comes back when one of its uploads ends.
  first.reset();
  ASSERT_TRUE(read().has_value());
}

TEST_F(PacedUpload, TheSlotAndTheBytesAreHeldUntilTheRequestEnds) {
  ex.steps = {{0ms, kHead + "x" + kTail}};
  ASSERT_TRUE(read().has_value());
  EXPECT_EQ(uploads.slots.open(), 1u);
  EXPECT_GT(uploads.budget.in_use(), 0u);
  target = {};
  EXPECT_EQ(uploads.slots.open(), 0u);
  EXPECT_EQ(uploads.budget.in_use(), 0u);
}

}  // namespace
}  // namespace mediagen::http
