// The order channel's events on real PostgreSQL: payloads, the per-order seq shared by order and
// item events, the state current when the seq is assigned, `result` once terminal (the REST
// value), the snapshot for a new subscriber, dropped notes and lost connections; then the write
// routes' hook after a cancel. The broadcaster is a recording double: it is the boundary.
#include <gtest/gtest.h>

#include <boost/beast/http/string_body.hpp>
#include <nlohmann/json.hpp>
#include <algorithm>
#include <chrono>
#include <condition_variable>
#include <mutex>
#include <set>
#include <thread>

#include "mediagen/account/users.hpp"
#include "mediagen/realtime/channel.hpp"
#include "mediagen/auth/keys.hpp"
#include "mediagen/access/scopes.hpp"
#include "mediagen/db/blocking_pool.hpp"
#include "mediagen/db/pg.hpp"
#include "mediagen/http/router.hpp"
#include "mediagen/orders/reads.hpp"
#include "mediagen/orders/order.hpp"
#include "mediagen/orders/routes.hpp"
#include "support.hpp"
#include "test_client.hpp"
#include "test_server.hpp"
#include "workers_fixture.hpp"

namespace mediagen::test {
namespace {

using json = nlohmann::json;
using orders::OrderChange;
using namespace std::chrono_literals;

class RecordingBroadcaster final : public realtime::Broadcaster {
 public:
  void publish(realtime::Event event) override {
    {
      std::lock_guard lock(mutex_);
      events_.push_back(std::move(event));
    }
    cv_.notify_all();
  }

  // The first `n` events once they arrived (the test fails after 20 s without them).
  std::vector<realtime::Event> wait_for(std::size_t n) {
    std::unique_lock lock(mutex_);
    const bool arrived = cv_.wait_for(lock, 20s, [&] { return events_.size() >= n; });
    EXPECT_TRUE(arrived) << "only " << events_.size() << " of " << n << " events arrived";
    return events_;
  }

  std::vector<realtime::Event> all() {
    std::lock_guard lock(mutex_);
    return events_;
  }

 private:
  std::mutex mutex_;
  std::condition_variable cv_;
  std::vector<realtime::Event> events_;
};

OrderChange order_change(const std::string& order_id) {
  return {.subject = OrderChange::Subject::order, .id = order_id, .order_id = order_id};
}
OrderChange item_change(const std::string& item_id, const std::string& order_id) {
  return {.subject = OrderChange::Subject::item, .id = item_id, .order_id = order_id};
}

json data_of(const realtime::Event& e) { return json::parse(e.data); }

std::set<std::string> keys_of(const json& object) {
  std::set<std::string> out;
  for (const auto& [key, value] : object.items()) out.insert(key);
  return out;
}

const std::set<std::string> kOrderKeys{"order_id", "status", "task_type", "updated_at", "seq"};
const std::set<std::string> kItemKeys{"order_id", "item_id", "chunk_index", "item_type", "status", "attempt_number", "seq"};

// Orders and items as rows written with SQL (no money moves: these tests only read them).
class OrderEventsTest : public MigratedTest {
 protected:
  void SetUp() override {
    MigratedTest::SetUp();
    if (HasFatalFailure()) return;
    db.emplace(db_url, &counters);
    user = account::create_user(*db, {.email = "events@example.com"}).id;
    publisher = std::make_unique<orders::OrderEventPublisher>(db_url, broadcaster, counters);
    publisher->start();
  }
  void TearDown() override {
    publisher.reset();
    db.reset();
    MigratedTest::TearDown();
  }

  std::string sql(const std::string& statement) { return query_value(db_url, statement); }

  std::string order(const std::string& task_type = "tts", const std::string& status = "created") {
    const bool terminal = orders::is_terminal(*orders::order_status_from_string(status));
    return sql("INSERT INTO orders (user_id, task_type, status, service_key, asset_id, terminal_at, updated_at)"
               " VALUES (" + std::to_string(user.value) + ", '" + task_type + "', '" + status + "', 'provider_a',"
               " (SELECT id FROM currency_assets WHERE is_default), " + (terminal ? "now()" : "NULL") +
               ", now() - interval '1 hour') RETURNING id::text");
  }

  std::string item(const std::string& order_id, int chunk_index, const std::string& type = "chunk",
                   const std::string& parent = "", int attempt = 1) {
    return sql(
        "WITH ins AS (INSERT INTO order_items (order_id, item_type, chunk_index, parent_item_id, attempt_number,"
        " original_text_length, current_text_length, free_length, billable_length, max_billable_length,"
        " max_raw_length, raw_length, capacity_unit, price_units, remaining_locked) VALUES ('" + order_id + "', '" +
        type + "', " + std::to_string(chunk_index) + ", " + (parent.empty() ? "NULL" : "'" + parent + "'") + ", " +
        std::to_string(attempt) + ", 12, 12, 12, 12, 15, 5000, 12, 'chars', 12, 12) RETURNING id),"
        " t AS (INSERT INTO order_item_texts SELECT id, 'Hello there.' FROM ins) SELECT id::text FROM ins");
  }

  void set_order(const std::string& id, const std::string& assignments) {
    sql("UPDATE orders SET " + assignments + " WHERE id = '" + id + "'");
  }
  void set_item(const std::string& id, const std::string& assignments) {
    sql("UPDATE order_items SET " + assignments + " WHERE id = '" + id + "'");
  }
  std::int64_t seq_of(const std::string& order_id) {
    return std::stoll(sql("SELECT event_seq FROM orders WHERE id = '" + order_id + "'"));
  }

  // GET /orders/{order} data as the REST routes render it by default (UTC).
  json rest_order(const std::string& id) {
    auto found = orders::find_own_order(*db, user, OrderId::parse(id).value(), /*with_items=*/true);
    EXPECT_TRUE(found.has_value());
    return json::parse(orders::order_json(*found, TimeZone::utc(), orders::WithItems::yes));
  }
  json rest_item(const std::string& order_id, const std::string& item_id) {
    const json order = rest_order(order_id);
    for (const auto& i : order["items"]) {
      if (i["id"] == item_id) return i;
    }
    ADD_FAILURE() << "no item " << item_id;
    return json::object();
  }

  std::optional<db::Db> db;
  UserId user;
  RecordingBroadcaster broadcaster;
  std::unique_ptr<orders::OrderEventPublisher> publisher;
};

TEST_F(OrderEventsTest, OrderUpdatedCarriesTheOrdersStateAndItsFirstSeq) {
  const std::string id = order("tts", "pending");
  item(id, 0);
  const json before = rest_order(id);

  publisher->changed(order_change(id));
  const auto events = broadcaster.wait_for(1);
  ASSERT_EQ(events.size(), 1u);
  EXPECT_EQ(events[0].channel, "private-order.task." + id);
  EXPECT_EQ(events[0].name, "order.updated");
  const json data = data_of(events[0]);
  EXPECT_EQ(keys_of(data), kOrderKeys) << data;
  EXPECT_EQ(data["order_id"], id);
  EXPECT_EQ(data["status"], "pending");
  EXPECT_EQ(data["task_type"], "tts");
  EXPECT_EQ(data["seq"], 1);
  // The REST rendering of the same moment: UTC with its offset.
  EXPECT_EQ(data["updated_at"], before["updated_at"]);
  EXPECT_TRUE(data["updated_at"].get<std::string>().ends_with("+00:00")) << data;

  // The bump changed nothing anyone can see, updated_at included.
  EXPECT_EQ(rest_order(id), before);
  EXPECT_EQ(seq_of(id), 1);
}

TEST_F(OrderEventsTest, OrderAndItemEventsShareOneSeqThatGrowsByOnePerEvent) {
  const std::string id = order("tts", "in_progress");
  const std::string first = item(id, 0);
  const std::string second = item(id, 1);
  set_item(first, "status = 'completed'");

  publisher->changed({item_change(first, id), order_change(id), item_change(second, id)});
  publisher->changed(item_change(first, id));
  const auto events = broadcaster.wait_for(4);
  ASSERT_EQ(events.size(), 4u);
  const std::vector<std::string> names{"order.item.updated", "order.updated", "order.item.updated", "order.item.updated"};
  for (std::size_t i = 0; i < events.size(); ++i) {
    EXPECT_EQ(events[i].name, names[i]);
    EXPECT_EQ(events[i].channel, "private-order.task." + id);
    EXPECT_EQ(data_of(events[i])["seq"], static_cast<int>(i + 1)) << events[i].data;
    EXPECT_EQ(events[i].seq, static_cast<std::int64_t>(i + 1)) << "the event carries its seq beside the data";
  }
  EXPECT_EQ(seq_of(id), 4);

  const json data = data_of(events[2]);
  EXPECT_EQ(keys_of(data), kItemKeys) << data;
  const json rest = rest_item(id, second);
  EXPECT_EQ(data["order_id"], id);
  EXPECT_EQ(data["item_id"], second);
  EXPECT_EQ(data["chunk_index"], 1);
  EXPECT_EQ(data["item_type"], "chunk");
  EXPECT_EQ(data["status"], "pending");
  EXPECT_EQ(data["attempt_number"], 1);
  for (const char* key : {"chunk_index", "item_type", "status", "attempt_number"}) {
    EXPECT_EQ(data[key], rest[key]) << key;
  }
  EXPECT_EQ(data_of(events[0])["status"], "completed");
}

TEST_F(OrderEventsTest, ItemEventsNameRetriesAndTheirAttempt) {
  const std::string id = order("tts", "partially_completed");
  const std::string original = item(id, 3);
  set_item(original, "status = 'failed', failure_reason = 'engine_error'");
  const std::string retry = item(id, 3, "retry", original, 2);

  publisher->changed(item_change(retry, id));
  const json data = data_of(broadcaster.wait_for(1).at(0));
  EXPECT_EQ(data["item_id"], retry);
  EXPECT_EQ(data["chunk_index"], 3);
  EXPECT_EQ(data["item_type"], "retry");
  EXPECT_EQ(data["attempt_number"], 2);
  EXPECT_EQ(data["status"], "pending");
}

// A note says what changed, not to what: two notes arriving late or out of order both carry the
// state current when their seq is assigned, so the highest seq always shows the newest state.
TEST_F(OrderEventsTest, EventsCarryTheStateCurrentWhenTheirSeqIsAssigned) {
  const std::string id = order("tts", "pending");
  const std::string chunk = item(id, 0);
  // The claim committed, then the completion; their notes are published only now.
  set_item(chunk, "status = 'processing', lease_token = gen_random_uuid(), locked_until = now() + interval '1 minute'");
  set_item(chunk, "status = 'completed', lease_token = NULL, locked_until = NULL");
  set_order(id, "status = 'in_progress'");
  set_order(id, "status = 'partially_completed'");
  publisher->changed({item_change(chunk, id), item_change(chunk, id), order_change(id), order_change(id)});
  auto events = broadcaster.wait_for(4);
  ASSERT_EQ(events.size(), 4u);
  EXPECT_EQ(data_of(events[0])["status"], "completed");
  EXPECT_EQ(data_of(events[1])["status"], "completed");
  EXPECT_EQ(data_of(events[2])["status"], "partially_completed");
  EXPECT_EQ(data_of(events[3])["status"], "partially_completed");

  set_item(chunk, "status = 'failed', failure_reason = 'engine_error'");
  publisher->changed(item_change(chunk, id));
  events = broadcaster.wait_for(5);
  ASSERT_EQ(events.size(), 5u);
  EXPECT_EQ(data_of(events[4])["status"], "failed");
  EXPECT_EQ(data_of(events[4])["seq"], 5);
}

// Two instances publish notes of one order while it keeps changing: ordered by seq, the events
// never show an older state after a newer one, and every seq is used once.
TEST_F(OrderEventsTest, TheHigherSeqNeverShowsAnOlderStateAcrossInstances) {
  const std::string id = order("sfx", "completed");
  set_order(id, "result_files = '[\"orders/r/result.mp3\"]', result_duration_ms = 0");
  orders::OrderEventPublisher other(db_url, broadcaster, counters);
  other.start();
  constexpr int kChanges = 120;
  db::Db writer(db_url, &counters);
  for (int version = 1; version <= kChanges; ++version) {
    db::transact(writer, [&](db::Tx& tx) {
      tx.exec_params("UPDATE orders SET result_duration_ms = $2 WHERE id = $1::uuid", id, version);
    });
    (version % 2 ? *publisher : other).changed(order_change(id));
  }
  auto events = broadcaster.wait_for(kChanges);
  other.stop();
  ASSERT_EQ(events.size(), static_cast<std::size_t>(kChanges));
  std::sort(events.begin(), events.end(), [](const realtime::Event& a, const realtime::Event& b) {
    return data_of(a)["seq"].get<std::int64_t>() < data_of(b)["seq"].get<std::int64_t>();
  });
  std::int64_t newest = 0;
  for (std::size_t i = 0; i < events.size(); ++i) {
    const json data = data_of(events[i]);
    EXPECT_EQ(data["seq"], static_cast<std::int64_t>(i + 1));
    const auto version = data["result"]["duration_ms"].get<std::int64_t>();
    EXPECT_GE(version, newest) << "seq " << data["seq"] << " shows an older state than an earlier seq";
    newest = std::max(newest, version);
  }
  EXPECT_EQ(newest, kChanges);
  EXPECT_EQ(data_of(events.back())["result"]["duration_ms"], kChanges);
}

TEST_F(OrderEventsTest, ResultIsSentOnlyOnceTheStatusIsTerminalAndEqualsTheRestResult) {
  const std::string running = order("tts", "partially_completed");
  set_order(running, "result_files = '[\"orders/x/partial.mp3\"]'");
  const std::string done = order("tts", "completed");
  set_order(done, "result_files = '[\"orders/d/result.mp3\"]',"
                  " result_service_files = '[\"orders/d/result.srt\", \"orders/d/result.vtt\"]', result_duration_ms = 4200");
  const std::string cancelled = order("music", "cancelled");

  publisher->changed({order_change(running), order_change(done), order_change(cancelled)});
  const auto events = broadcaster.wait_for(3);
  ASSERT_EQ(events.size(), 3u);

  EXPECT_EQ(keys_of(data_of(events[0])), kOrderKeys) << events[0].data;

  const json completed = data_of(events[1]);
  auto with_result = kOrderKeys;
  with_result.insert("result");
  with_result.insert("failure_reason");
  EXPECT_EQ(keys_of(completed), with_result) << completed;
  EXPECT_EQ(completed["status"], "completed");
  EXPECT_EQ(completed["result"], rest_order(done)["result"]);
  EXPECT_EQ(completed["result"]["files"], json({"orders/d/result.mp3"}));
  EXPECT_EQ(completed["result"]["duration_ms"], 4200);

  // Terminal without files: the key is there with the REST value, null.
  const json nothing = data_of(events[2]);
  EXPECT_EQ(keys_of(nothing), with_result) << nothing;
  EXPECT_TRUE(nothing["result"].is_null());
  EXPECT_EQ(nothing["result"], rest_order(cancelled)["result"]);
  EXPECT_TRUE(nothing["failure_reason"].is_null());
}

TEST_F(OrderEventsTest, AnOrderWhoseStitchGaveUpSaysWhyInItsEventAndOnRest) {
  const std::string id = order("tts", "failed");
  set_order(id, "failure_reason = 'stitch_failed'");
  publisher->changed(order_change(id));
  const auto events = broadcaster.wait_for(1);
  ASSERT_EQ(events.size(), 1u);
  const json failed = data_of(events[0]);
  EXPECT_EQ(failed["status"], "failed");
  EXPECT_EQ(failed["failure_reason"], "stitch_failed");
  EXPECT_EQ(failed["failure_reason"], rest_order(id)["failure_reason"]);
  EXPECT_TRUE(failed["result"].is_null());
}

TEST_F(OrderEventsTest, SnapshotCarriesTheCurrentSeqWithoutABump) {
  const std::string id = order("tts", "pending");
  const std::string chunk = item(id, 0);
  auto snapshot = orders::order_snapshot(*db, OrderId::parse(id).value());
  ASSERT_TRUE(snapshot.has_value());
  EXPECT_EQ(data_of(*snapshot)["seq"], 0);

  publisher->changed({order_change(id), item_change(chunk, id)});
  broadcaster.wait_for(2);
  set_order(id, "status = 'in_progress'");

  snapshot = orders::order_snapshot(*db, OrderId::parse(id).value());
  ASSERT_TRUE(snapshot.has_value());
  EXPECT_EQ(snapshot->channel, "private-order.task." + id);
  EXPECT_EQ(snapshot->name, "order.updated");
  const json data = data_of(*snapshot);
  EXPECT_EQ(keys_of(data), kOrderKeys) << data;
  EXPECT_EQ(data["seq"], 2);
  EXPECT_EQ(snapshot->seq, 2);
  EXPECT_EQ(data["status"], "in_progress");
  EXPECT_EQ(data["updated_at"], rest_order(id)["updated_at"]);
  EXPECT_EQ(seq_of(id), 2);
  EXPECT_EQ(data_of(*orders::order_snapshot(*db, OrderId::parse(id).value()))["seq"], 2);

  // The next event continues after the snapshot's seq.
  publisher->changed(order_change(id));
  EXPECT_EQ(data_of(broadcaster.wait_for(3).at(2))["seq"], 3);

  // A terminal order's snapshot carries its result, as the events do.
  set_order(id, "status = 'completed', terminal_at = now(), result_files = '[\"orders/s/result.mp3\"]'");
  const json terminal = data_of(*orders::order_snapshot(*db, OrderId::parse(id).value()));
  EXPECT_EQ(terminal["result"], rest_order(id)["result"]);
  EXPECT_EQ(terminal["seq"], 3);
}

TEST_F(OrderEventsTest, SnapshotOfAnUnknownOrderIsNothing) {
  EXPECT_FALSE(orders::order_snapshot(*db, OrderId::parse("0f8fad5b-d9cb-469f-a165-70867728950e").value()).has_value());
  // A malformed id names no order channel, so no snapshot is ever asked for it.
  EXPECT_FALSE(realtime::parse_channel("private-order.task.nope"));
  EXPECT_FALSE(realtime::parse_channel("private-order.task."));
}

TEST_F(OrderEventsTest, NotesOfUnknownOrdersAndForeignItemsAreDroppedWithoutASeq) {
  const std::string id = order();
  const std::string chunk = item(id, 0);
  const std::string other = order();
  const std::string missing = "0f8fad5b-d9cb-469f-a165-70867728950e";
  publisher->changed({order_change(missing), order_change("nope"), item_change(missing, id),
                      item_change(chunk, other), item_change("nope", id), item_change(chunk, missing),
                      item_change(chunk, "")});
  // Notes are handled in order: once this one is out, the ones before it were dealt with.
  publisher->changed(order_change(id));
  const auto events = broadcaster.wait_for(1);
  ASSERT_EQ(events.size(), 1u);
  EXPECT_EQ(data_of(events[0])["order_id"], id);
  EXPECT_EQ(data_of(events[0])["seq"], 1);
  EXPECT_EQ(seq_of(id), 1);
  EXPECT_EQ(seq_of(other), 0);
  publisher->stop();
  EXPECT_EQ(broadcaster.all().size(), 1u);
}

TEST_F(OrderEventsTest, StopPublishesWhatIsQueuedAndNotesBeforeStartWait) {
  publisher.reset();
  orders::OrderEventPublisher later(db_url, broadcaster, counters);
  const std::string id = order();
  constexpr int kNotes = 40;
  std::vector<OrderChange> notes(kNotes, order_change(id));
  later.changed(notes);
  EXPECT_TRUE(broadcaster.all().empty());
  later.start();
  later.stop();
  const auto events = broadcaster.all();
  ASSERT_EQ(events.size(), static_cast<std::size_t>(kNotes));
  EXPECT_EQ(data_of(events.back())["seq"], kNotes);
  // After stop a note is dropped.
  later.changed(order_change(id));
  later.start();
  EXPECT_EQ(broadcaster.all().size(), static_cast<std::size_t>(kNotes));
  EXPECT_EQ(seq_of(id), kNotes);
}

TEST_F(OrderEventsTest, AnUnreachableDatabaseDropsNotesWithoutBlockingOrCrashing) {
  orders::OrderEventPublisher nowhere("postgresql://postgres@127.0.0.1:1/none?connect_timeout=2", broadcaster, counters);
  nowhere.start();
  const std::string id = order();
  for (int i = 0; i < 100; ++i) nowhere.changed(order_change(id));
  nowhere.stop();
  EXPECT_TRUE(broadcaster.all().empty());
  EXPECT_EQ(seq_of(id), 0);
}

TEST_F(OrderEventsTest, ALostConnectionDropsAChangeAndTheNextOnesReconnect) {
  publisher.reset();
  const std::string app = "mg_events_" + random_hex();
  const std::string url = db_url + (db_url.find('?') == std::string::npos ? "?" : "&") + "application_name=" + app;
  orders::OrderEventPublisher own(url, broadcaster, counters);
  own.start();
  const std::string id = order();
  own.changed(order_change(id));
  ASSERT_EQ(broadcaster.wait_for(1).size(), 1u);

  EXPECT_EQ(sql("SELECT count(pg_terminate_backend(pid)) FROM pg_stat_activity WHERE application_name = '" + app + "'"),
            "1");
  // Notes keep coming; the first ones fail or fall into the pause after the failure.
  for (int i = 0; i < 100 && broadcaster.all().size() < 2; ++i) {
    own.changed(order_change(id));
    std::this_thread::sleep_for(100ms);
  }
  own.stop();
  const auto events = broadcaster.all();
  ASSERT_GE(events.size(), 2u) << "no event after the connection was lost";
  // A dropped note took no seq: the events stay consecutive.
  for (std::size_t i = 0; i < events.size(); ++i) EXPECT_EQ(data_of(events[i])["seq"], static_cast<int>(i + 1));
  EXPECT_EQ(seq_of(id), static_cast<std::int64_t>(events.size()));
}

// ---- the write routes' hook ----

namespace bhttp = boost::beast::http;
using test::Response;

Response post(std::uint16_t port, const std::string& target, const std::string& key) {
  test::Request req{bhttp::verb::post, target, 11};
  req.set("X-API-KEY", key);
  req.prepare_payload();
  return test::TestClient(port).send(std::move(req));
}

// Orders with their money locked as creation leaves them, so a cancel moves real money.
class OrderWriteHooksTest : public WorkersTest {
 protected:
  struct Call {
    std::vector<OrderChange> changes;
    std::string order_status;  // read on a connection of its own while the hook runs
  };

  void SetUp() override {
    WorkersTest::SetUp();
    if (HasFatalFailure()) return;
    orders::OrderWriteOptions options;
    options.on_changed = [this](std::vector<OrderChange> changes) {
      const std::string order_id = changes.empty() ? "" : changes.back().order_id;
      Call call{std::move(changes), order_status(order_id)};
      std::lock_guard lock(mutex);
      calls.push_back(std::move(call));
    };
    server = std::make_unique<TestServer>(TestServerOptions{db_url, redis_url, prefix}, clock, counters,
                                          [options](http::Router& router, db::BlockingPool& pool, db::AsyncPg&) {
                                            orders::register_order_write_routes(router, pool, options);
                                          });
    key = auth::create_key(*db, {.user = user, .scopes = *auth::preset("automation")}).plaintext;
  }
  void TearDown() override {
    server.reset();
    WorkersTest::TearDown();
  }

  std::vector<Call> recorded() {
    std::lock_guard lock(mutex);
    return calls;
  }

  SystemClock clock;
  std::unique_ptr<TestServer> server;
  std::string key;
  std::mutex mutex;
  std::vector<Call> calls;
};

TEST_F(OrderWriteHooksTest, CancelNamesTheStoppedItemsThenTheOrderAfterTheCommit) {
  const FixtureOrder o = make_order({.texts = {"One two three.", "Four five six.", "Seven eight."}});
  value("UPDATE order_items SET status = 'processing', lease_token = gen_random_uuid(),"
        " locked_until = now() + interval '1 minute' WHERE id = '" + o.items[1] + "'");
  const Response r = post(server->port(), "/api/orders/" + o.id + "/cancel", key);
  ASSERT_EQ(r.result_int(), 200) << r.body();

  const auto got = recorded();
  ASSERT_EQ(got.size(), 1u);
  EXPECT_EQ(got[0].order_status, "cancelled") << "the hook ran before the commit";
  const auto& changes = got[0].changes;
  ASSERT_EQ(changes.size(), 4u);
  std::set<std::string> items;
  for (std::size_t i = 0; i + 1 < changes.size(); ++i) {
    EXPECT_EQ(changes[i].subject, OrderChange::Subject::item);
    EXPECT_EQ(changes[i].order_id, o.id);
    items.insert(changes[i].id);
  }
  EXPECT_EQ(items, std::set<std::string>(o.items.begin(), o.items.end()));
  EXPECT_EQ(changes.back().subject, OrderChange::Subject::order);
  EXPECT_EQ(changes.back().id, o.id);
  EXPECT_EQ(changes.back().order_id, o.id);
}

TEST_F(OrderWriteHooksTest, CancelNamesOnlyTheItemsItStopped) {
  const FixtureOrder o = make_order({.texts = {"One two three.", "Four five six."}});
  // The first chunk failed before the cancel (its lock stays until the order settles).
  value("UPDATE order_items SET status = 'failed', failure_reason = 'engine_error' WHERE id = '" + o.items[0] + "'");
  ASSERT_EQ(post(server->port(), "/api/orders/" + o.id + "/cancel", key).result_int(), 200);
  const auto got = recorded();
  ASSERT_EQ(got.size(), 1u);
  ASSERT_EQ(got[0].changes.size(), 2u);
  EXPECT_EQ(got[0].changes[0].id, o.items[1]);
  EXPECT_EQ(got[0].changes[1].id, o.id);
}

TEST_F(OrderWriteHooksTest, RefusalsCallNothing) {
  const FixtureOrder o = make_order({.texts = {"One two three."}});
  ASSERT_EQ(post(server->port(), "/api/orders/" + o.id + "/cancel", key).result_int(), 200);
  ASSERT_EQ(recorded().size(), 1u);
  // Cancelled already: 400. Another account's order and a missing one: 404.
  EXPECT_EQ(post(server->port(), "/api/orders/" + o.id + "/cancel", key).result_int(), 400);
  const UserId stranger = account::create_user(*db, {.email = "stranger@example.com"}).id;
  const std::string stranger_key = auth::create_key(*db, {.user = stranger, .scopes = *auth::preset("automation")}).plaintext;
  const FixtureOrder mine = make_order({.texts = {"Nine ten."}});
  EXPECT_EQ(post(server->port(), "/api/orders/" + mine.id + "/cancel", stranger_key).result_int(), 404);
  EXPECT_EQ(post(server->port(), "/api/orders/0f8fad5b-d9cb-469f-a165-70867728950e/cancel", key).result_int(), 404);
  // Nothing to retry in an order without failed chunks: 422.
  EXPECT_EQ(post(server->port(), "/api/orders/" + mine.id + "/items/retry-failed", key).result_int(), 422);
  EXPECT_EQ(recorded().size(), 1u);
  EXPECT_EQ(order_status(mine.id), "created");
}

TEST_F(OrderWriteHooksTest, BulkRetryNamesTheNewRecordsAndTheOrder) {
  const FixtureOrder o = make_order({.texts = {"One two three.", "Four five six.", "Seven eight."}});
  value("UPDATE orders SET status = 'partially_completed' WHERE id = '" + o.id + "'");
  value("UPDATE order_items SET status = 'failed', failure_reason = 'engine_error' WHERE id IN ('" + o.items[0] +
        "', '" + o.items[2] + "')");
  value("UPDATE order_items SET status = 'processing', lease_token = gen_random_uuid(),"
        " locked_until = now() + interval '1 minute' WHERE id = '" + o.items[1] + "'");
  const Response r = post(server->port(), "/api/orders/" + o.id + "/items/retry-failed", key);
  ASSERT_EQ(r.result_int(), 201) << r.body();
  std::set<std::string> created;
  const json body = json::parse(r.body());
  for (const auto& i : body["data"]["items"]) created.insert(i["id"].get<std::string>());
  ASSERT_EQ(created.size(), 2u);

  const auto got = recorded();
  ASSERT_EQ(got.size(), 1u);
  const auto& changes = got[0].changes;
  ASSERT_EQ(changes.size(), 3u);
  std::set<std::string> named;
  for (std::size_t i = 0; i < 2; ++i) {
    EXPECT_EQ(changes[i].subject, OrderChange::Subject::item);
    EXPECT_EQ(changes[i].order_id, o.id);
    named.insert(changes[i].id);
  }
  EXPECT_EQ(named, created);
  EXPECT_EQ(changes[2].subject, OrderChange::Subject::order);
  EXPECT_EQ(changes[2].id, o.id);
  // Settle the order so the invariants hold at teardown: cancel it (this one calls the hook too).
  ASSERT_EQ(post(server->port(), "/api/orders/" + o.id + "/cancel", key).result_int(), 200);
  EXPECT_EQ(recorded().size(), 2u);
}

}  // namespace
}  // namespace mediagen::test
