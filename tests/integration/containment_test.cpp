// Containment at the boundaries where remote input is handled: a route handler and a worker job
// that throw (a std::exception, and something that is not one) end that request or that chunk
// alone; the server answers the next request, the pool settles the next chunk, and each failure
// is counted in InfraCounters::contained (mediagen_contained_failures_total).
#include <gtest/gtest.h>

#include <boost/beast/http/string_body.hpp>
#include <nlohmann/json.hpp>

#include <stdexcept>
#include <thread>

#include "mediagen/http/router.hpp"
#include "mediagen/workers/worker_pool.hpp"
#include "test_client.hpp"
#include "test_server.hpp"
#include "workers_fixture.hpp"

namespace mediagen::test {
namespace {

namespace bhttp = boost::beast::http;
using namespace std::chrono_literals;
using json = nlohmann::json;

std::uint64_t contained(const InfraCounters& c, Boundary b) { return c.contained[static_cast<std::size_t>(b)].load(); }

http::Route open_route(std::string pattern, http::Handler handler) {
  return {.method = http::Method::get, .pattern = std::move(pattern), .access = http::Access::open,
          .handler = std::move(handler)};
}

class HandlerContainmentTest : public MigratedTest {
 protected:
  void SetUp() override {
    MigratedTest::SetUp();
    if (HasFatalFailure()) return;
    server = std::make_unique<TestServer>(
        TestServerOptions{db_url, redis_url, prefix}, clock, counters, [](http::Router& router, db::BlockingPool&, db::AsyncPg&) {
          router.add_root(open_route("/boom", [](http::RequestContext&) -> boost::asio::awaitable<Result<http::Reply>> {
            throw std::logic_error("a defect in a handler");
            co_return http::Reply{};
          }));
          router.add_root(open_route("/bang", [](http::RequestContext&) -> boost::asio::awaitable<Result<http::Reply>> {
            throw 42;  // not even a std::exception
            co_return http::Reply{};
          }));
          router.add_root(open_route("/fine", [](http::RequestContext&) -> boost::asio::awaitable<Result<http::Reply>> {
            co_return http::Reply{.data_json = R"({"ok":true})"};
          }));
        });
  }
  void TearDown() override {
    server.reset();
    MigratedTest::TearDown();
  }

  static Request get(const std::string& target) {
    Request req{bhttp::verb::get, target, 11};
    req.set(bhttp::field::host, "127.0.0.1");
    return req;
  }

  SystemClock clock;
  std::unique_ptr<TestServer> server;
};

TEST_F(HandlerContainmentTest, AThrowingHandlerAnswers500ForThatRequestOnly) {
  TestClient client(server->port());
  for (const char* target : {"/boom", "/bang"}) {
    const Response r = client.send(get(target));
    EXPECT_EQ(r.result_int(), 500) << target;
    EXPECT_EQ(json::parse(r.body()), json({{"success", false}, {"message", "Internal server error."}})) << target;
    // The same kept-alive connection serves the next request.
    const Response fine = client.send(get("/fine"));
    EXPECT_EQ(fine.result_int(), 200) << target;
  }
  EXPECT_EQ(contained(counters, Boundary::request), 2u);
  EXPECT_EQ(contained(counters, Boundary::connection), 0u);
  TestClient another(server->port());
  EXPECT_EQ(another.send(get("/fine")).result_int(), 200);
}

// Speech that fails the way a defect would: by throwing, not by returning an EngineFailure.
class ThrowingSource final : public workers::SpeechSource {
 public:
  boost::system::result<engines::SpeechPcm, engines::EngineFailure> speak(const engines::SpeechRequest& r) override {
    if (r.text.find("throw-std") != std::string::npos) throw std::runtime_error("engine defect");
    if (r.text.find("throw-int") != std::string::npos) throw 7;
    return tone.speak(r);
  }
  ToneSource tone;
};

class JobContainmentTest : public WorkersTest {};

TEST_F(JobContainmentTest, AThrowingEngineFailsThatChunkAndThePoolGoesOn) {
  const auto wallet_before = wallet();
  const auto failing = make_order({.texts = {"This one throw-std please.", "And this throw-int too."}});
  const auto fine = make_order({.texts = {"A chunk that is spoken.", "And another one."}});
  ThrowingSource speech;
  workers::WorkerPoolOptions o;
  o.workers = 1;  // one worker: the chunks after the failures prove it lived on
  o.lease = 10s;
  o.sweep_interval = 200ms;
  o.wake_interval = 1s;
  workers::WorkerPool pool(o, speech, *store, db_url, counters);
  pool.start();
  bool done = false;
  for (int i = 0; i < 1200 && !done; ++i) {
    done = value("SELECT bool_and(status NOT IN ('created', 'pending', 'in_progress') AND stitch_token IS NULL)"
                 " FROM orders WHERE id IN ('" + failing.id + "', '" + fine.id + "')") == "t";
    if (!done) std::this_thread::sleep_for(50ms);
  }
  pool.stop();
  ASSERT_TRUE(done);
  EXPECT_EQ(order_status(failing.id), "failed");
  EXPECT_EQ(number("SELECT count(*) FROM order_items WHERE order_id = '" + failing.id +
                   "' AND status = 'failed' AND failure_reason = 'engine_error'"),
            2);
  EXPECT_EQ(order_status(fine.id), "completed");
  EXPECT_EQ(contained(counters, Boundary::job), 2u);
  // The failed order's money is back; only the completed one is charged.
  EXPECT_EQ(wallet(), wallet_before - fine.price_units);
}

}  // namespace
}  // namespace mediagen::test
