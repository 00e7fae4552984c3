// Reading orders and items on real PostgreSQL (spec 2.3, 2.4, 4.1, 4.2): ownership, filters,
// paging, newest first, item order and flags, the /text fields and retention; then the same
// routes through the real pipeline and HTTP server. Fixtures are rows written with SQL.
#include <gtest/gtest.h>

#include <boost/asio/co_spawn.hpp>
#include <boost/asio/executor_work_guard.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/use_future.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/beast/core/flat_buffer.hpp>
#include <boost/beast/http/read.hpp>
#include <boost/beast/http/string_body.hpp>
#include <boost/beast/http/write.hpp>
#include <nlohmann/json.hpp>
#include <algorithm>
#include <thread>

#include "mediagen/account/users.hpp"
#include "mediagen/auth/keys.hpp"
#include "mediagen/db/async_pg.hpp"
#include "mediagen/db/blocking_pool.hpp"
#include "mediagen/http/router.hpp"
#include "mediagen/db/pg.hpp"
#include "mediagen/orders/reads.hpp"
#include "mediagen/orders/routes.hpp"
#include "mediagen/templates/seed.hpp"
#include "support.hpp"
#include "test_server.hpp"

namespace mediagen::test {
namespace {

namespace asio = boost::asio;
namespace beast = boost::beast;
namespace bhttp = boost::beast::http;
using tcp = asio::ip::tcp;
using json = nlohmann::json;
using namespace std::chrono_literals;
using orders::ItemStatus;
using orders::OrderStatus;

const std::string kMissing = "0f8fad5b-d9cb-469f-a165-70867728950e";

// Ids as the routes parse them from a path (http::path_id); these tests name well-formed ones.
OrderId oid(const std::string& text) { return OrderId::parse(text).value(); }
ItemId iid(const std::string& text) { return ItemId::parse(text).value(); }

std::string quoted(const std::optional<std::string>& v) { return v ? "'" + *v + "'" : "NULL"; }

struct ItemRow {
  std::string order_id;
  std::string type = "chunk";
  int chunk_index = 0;
  std::string status = "pending";
  int attempt = 1;
  std::optional<std::string> parent;
  int age_seconds = 100;  // created this long ago
  std::optional<std::string> text = "Hello there.";
  std::optional<int> paragraph;
  std::optional<std::string> failure;
};

class OrdersReadTest : public MigratedTest {
 protected:
  void SetUp() override {
    MigratedTest::SetUp();
    if (HasFatalFailure()) return;
    db.emplace(db_url, &counters);
    db::transact(*db, [&](db::Tx& tx) { templates::seed_catalogue(*db, tx); });
    alice = account::create_user(*db, {.email = "alice@example.com"}).id;
    bob = account::create_user(*db, {.email = "bob@example.com"}).id;
    alice_template = sql("INSERT INTO templates (user_id, service_key, name, config) VALUES (" +
                         std::to_string(alice.value) + ", 'provider_a', 'Narrator', '{}') RETURNING id::text");
  }
  void TearDown() override {
    if (reads) {
      reads.reset();
      io_work.reset();
      io_thread.join();
    }
    db.reset();
    MigratedTest::TearDown();
  }

  // The reads the GET routes make (from an I/O thread, db::AsyncPg), run to their answer.
  template <class T>
  T on_io(asio::awaitable<T> read) {
    if (!reads) {
      reads.emplace(io, db::AsyncPgOptions{.url = db_url, .connections = 1}, counters);
      io_thread = std::thread([this] { io.run(); });
    }
    return asio::co_spawn(io, std::move(read), asio::use_future).get();
  }
  Result<orders::Item> own_item(UserId user, const std::string& order_id, const std::string& item_id) {
    return on_io(orders::find_own_item(*reads, user, oid(order_id), iid(item_id)));
  }
  Result<orders::ItemText> text_of(UserId user, const std::string& order_id, const std::string& item_id) {
    return on_io(orders::item_text(*reads, user, oid(order_id), iid(item_id)));
  }

  asio::io_context io;
  asio::executor_work_guard<asio::io_context::executor_type> io_work{io.get_executor()};
  std::thread io_thread;
  std::optional<db::AsyncPg> reads;

  std::string sql(const std::string& statement) { return query_value(db_url, statement); }

  // An order created `age_seconds` ago; terminal statuses get terminal_at as the schema demands.
  std::string order(UserId user, const std::string& task_type, const std::string& status, int age_seconds,
                    const std::optional<std::string>& template_id = std::nullopt, const std::string& extra_columns = "",
                    const std::string& extra_values = "") {
    const bool terminal = !orders::order_status_from_string(status) ||
                          orders::is_terminal(*orders::order_status_from_string(status));
    return sql(
        "INSERT INTO orders (user_id, task_type, status, service_key, template_id, asset_id, terminal_at,"
        " created_at, updated_at" +
        extra_columns + ") VALUES (" + std::to_string(user.value) + ", '" + task_type + "', '" + status + "', '" +
        (task_type == "tts" ? "provider_a" : task_type) + "', " + quoted(template_id) +
        ", (SELECT id FROM currency_assets WHERE is_default), " + (terminal ? "now()" : "NULL") + ", now() - interval '" +
        std::to_string(age_seconds) + " seconds', now()" + extra_values + ") RETURNING id::text");
  }

  std::string item(const ItemRow& r) {
    const bool processing = r.status == "processing";
    return sql(
        "WITH ins AS (INSERT INTO order_items (order_id, item_type, chunk_index, paragraph_index, parent_item_id,"
        " attempt_number, status, failure_reason, original_text_length, current_text_length, free_length, billable_length,"
        " max_billable_length, max_raw_length, raw_length, capacity_unit, price_units, remaining_locked,"
        " lease_token, locked_until, created_at, updated_at) VALUES ('" +
        r.order_id + "', '" + r.type + "', " + std::to_string(r.chunk_index) + ", " +
        (r.paragraph ? std::to_string(*r.paragraph) : "NULL") + ", " + quoted(r.parent) + ", " +
        std::to_string(r.attempt) + ", '" + r.status + "', " + quoted(r.failure) +
        ", 12, 12, 12, 12, 15, 5000, 12, 'chars', 12, 12, " +
        (processing ? "gen_random_uuid(), now() + interval '1 minute'" : "NULL, NULL") + ", now() - interval '" +
        std::to_string(r.age_seconds) + " seconds', now()) RETURNING id), t AS (INSERT INTO order_item_texts"
        " SELECT id, " + quoted(r.text) + "::text FROM ins WHERE " + quoted(r.text) + " IS NOT NULL)"
        " SELECT id::text FROM ins");
  }

  std::vector<std::string> ids_of(const orders::OrderPage& page) {
    std::vector<std::string> out;
    for (const auto& o : page.items) out.push_back(o.id);
    return out;
  }

  std::optional<db::Db> db;
  UserId alice, bob;
  std::string alice_template;
};

// ---- one order ----

TEST_F(OrdersReadTest, FindsTheOwnersOrderWithItsFields) {
  const std::string id = order(alice, "tts", "completed", 10, alice_template,
                               ", config_override, generation_mode, price_units, tokens_from_quota, tokens_from_payg,"
                               " result_files, result_service_files, result_duration_ms",
                               ", '{\"generation_mode\": \"paragraph\"}', 'paragraph', 37, 100, 240,"
                               " '[\"orders/a/result.mp3\"]', '[\"orders/a/result.srt\", \"orders/a/result.vtt\"]',"
                               " 4200");
  item({.order_id = id, .status = "completed", .paragraph = 0});
  auto found = orders::find_own_order(*db, alice, oid(id), /*with_items=*/false);
  ASSERT_TRUE(found) << found.error().message.key;
  EXPECT_EQ(found->id, id);
  EXPECT_EQ(found->user_id, alice);
  EXPECT_EQ(found->status, OrderStatus::completed);
  EXPECT_EQ(found->task_type, TaskType::tts);
  EXPECT_EQ(found->service_key, "provider_a");
  EXPECT_EQ(found->template_id, alice_template);
  EXPECT_EQ(json::parse(found->config_override_json), json({{"generation_mode", "paragraph"}}));
  EXPECT_EQ(found->generation_mode, "paragraph");
  EXPECT_EQ(found->price_units, 37);
  EXPECT_EQ(found->tokens_from_quota, 100);
  EXPECT_EQ(found->tokens_from_payg, 240);
  EXPECT_EQ(found->result_files, std::vector<std::string>{"orders/a/result.mp3"});
  EXPECT_EQ(found->result_service_files, (std::vector<std::string>{"orders/a/result.srt", "orders/a/result.vtt"}));
  EXPECT_EQ(found->result_duration_ms, 4200);
  EXPECT_FALSE(found->retry_of);
  EXPECT_FALSE(found->stitching);
  EXPECT_FALSE(found->files_removed);
  EXPECT_TRUE(found->items.empty());

  auto with_items = orders::find_own_order(*db, alice, oid(id), /*with_items=*/true);
  ASSERT_TRUE(with_items);
  ASSERT_EQ(with_items->items.size(), 1u);
  EXPECT_EQ(with_items->items[0].paragraph_index, 0);
  EXPECT_TRUE(with_items->items[0].can_regenerate);
}

TEST_F(OrdersReadTest, AnotherAccountsOrderIsNotFoundLikeAMissingOne) {
  const std::string id = order(alice, "tts", "created", 10);
  // A malformed id never reaches the read: the route's parse refuses it with the same 404.
  EXPECT_FALSE(OrderId::parse("not-a-uuid"));
  EXPECT_FALSE(OrderId::parse(""));
  for (const std::string& probe : {id, kMissing}) {
    auto found = orders::find_own_order(*db, bob, oid(probe), true);
    ASSERT_FALSE(found) << probe;
    EXPECT_EQ(found.error().status, 404) << probe;
    EXPECT_EQ(found.error().message.key, "errors.not_found") << probe;
  }
  std::string upper = id;
  std::transform(upper.begin(), upper.end(), upper.begin(), [](unsigned char c) { return std::toupper(c); });
  auto found = orders::find_own_order(*db, alice, oid(upper), false);
  ASSERT_TRUE(found);
  EXPECT_EQ(found->id, id);
}

TEST_F(OrdersReadTest, ReportsAStitchAndRemovedFiles) {
  const std::string stitching = order(alice, "tts", "in_progress", 10, std::nullopt, ", stitch_token, stitch_until",
                                      ", gen_random_uuid(), now() + interval '1 minute'");
  const std::string removed = order(alice, "tts", "completed", 10, std::nullopt, ", files_removed_at", ", now()");
  EXPECT_TRUE(orders::find_own_order(*db, alice, oid(stitching), false)->stitching);
  EXPECT_TRUE(orders::find_own_order(*db, alice, oid(removed), false)->files_removed);
}

// ---- items ----

TEST_F(OrdersReadTest, ListsItemsByPositionThenAge) {
  const std::string id = order(alice, "tts", "partially_completed", 100);
  const std::string second = item({.order_id = id, .chunk_index = 1, .status = "completed", .age_seconds = 90});
  const std::string first = item({.order_id = id, .chunk_index = 0, .status = "failed", .age_seconds = 80,
                                  .failure = "engine_error"});
  const std::string retry = item({.order_id = id, .type = "retry", .chunk_index = 0, .status = "failed",
                                  .attempt = 2, .parent = first, .age_seconds = 10, .failure = "engine_error"});
  const std::string other_order = order(alice, "tts", "created", 5);
  item({.order_id = other_order});

  auto found = orders::find_own_order(*db, alice, oid(id), true);
  ASSERT_TRUE(found);
  ASSERT_EQ(found->items.size(), 3u);
  EXPECT_EQ(found->items[0].id, first);
  EXPECT_EQ(found->items[1].id, retry);
  EXPECT_EQ(found->items[2].id, second);
  EXPECT_EQ(found->items[1].type, orders::ItemType::retry);
  EXPECT_EQ(found->items[1].parent_item_id, first);
  EXPECT_EQ(found->items[1].attempt_number, 2);
  EXPECT_EQ(found->items[1].failure_reason, "engine_error");
  // Only the position's last attempt may be retried; the completed chunk may be regenerated.
  EXPECT_FALSE(found->items[0].can_retry);
  EXPECT_TRUE(found->items[1].can_retry);
  EXPECT_FALSE(found->items[2].can_retry);
  EXPECT_TRUE(found->items[2].can_regenerate);
}

TEST_F(OrdersReadTest, FindsOneItemOnlyThroughItsOwnOrder) {
  const std::string a = order(alice, "tts", "in_progress", 20);
  const std::string b = order(alice, "tts", "in_progress", 10);
  const std::string item_a = item({.order_id = a, .status = "processing"});
  const std::string item_b = item({.order_id = b});

  auto found = own_item(alice, a, item_a);
  ASSERT_TRUE(found);
  EXPECT_EQ(found->id, item_a);
  EXPECT_EQ(found->order_id, a);
  EXPECT_EQ(found->status, ItemStatus::processing);
  EXPECT_FALSE(found->can_retry);

  EXPECT_FALSE(ItemId::parse("x"));  // refused by the route's parse, 404 as below
  for (auto [user, order_id, item_id] : {std::tuple{alice, a, item_b}, std::tuple{bob, a, item_a},
                                         std::tuple{alice, kMissing, item_a}, std::tuple{alice, a, kMissing}}) {
    auto miss = own_item(user, order_id, item_id);
    ASSERT_FALSE(miss) << order_id << " " << item_id;
    EXPECT_EQ(miss.error().status, 404);
  }
}

TEST_F(OrdersReadTest, GivesTheTextFieldsOfAnItem) {
  const std::string id = order(alice, "tts", "partially_completed", 20);
  const std::string chunk = item({.order_id = id, .status = "failed", .text = "Hello there."});
  auto text = text_of(alice, id, chunk);
  ASSERT_TRUE(text);
  EXPECT_EQ(text->text, "Hello there.");
  EXPECT_EQ(text->fields.length, 12u);
  EXPECT_EQ(text->fields.original_text_length, 12u);
  EXPECT_EQ(text->fields.free_length, 12u);
  EXPECT_EQ(text->fields.billable_length, 12u);
  EXPECT_EQ(text->fields.max_billable_length, 15u);
  EXPECT_EQ(text->fields.max_raw_length, 5000u);
  EXPECT_EQ(text->fields.raw_length, 12u);
  EXPECT_EQ(text->fields.capacity_unit, CapacityUnit::chars);
  EXPECT_FALSE(text->fields.surcharge_applies);

  sql("UPDATE order_item_texts SET text = 'Hello there, friend.' WHERE item_id = '" + chunk + "' RETURNING 1");
  sql("UPDATE order_items SET current_text_length = 20, billable_length = 14,"
      " raw_length = 20, capacity_unit = 'utf8_bytes' WHERE id = '" + chunk + "' RETURNING 1");
  text = text_of(alice, id, chunk);
  ASSERT_TRUE(text);
  EXPECT_EQ(text->fields.length, 20u);
  EXPECT_TRUE(text->fields.surcharge_applies);
  EXPECT_EQ(text->fields.capacity_unit, CapacityUnit::utf8_bytes);

  EXPECT_EQ(text_of(bob, id, chunk).error().status, 404);
  const std::string other = order(alice, "tts", "created", 5);
  EXPECT_EQ(text_of(alice, other, chunk).error().status, 404);
}

TEST_F(OrdersReadTest, TextRemovedByRetentionIsInputExpired) {
  const std::string id = order(alice, "tts", "completed", 20);
  const std::string chunk = item({.order_id = id, .status = "completed"});
  sql("DELETE FROM order_item_texts WHERE item_id = '" + chunk + "' RETURNING 1");
  auto text = text_of(alice, id, chunk);
  ASSERT_FALSE(text);
  EXPECT_EQ(text.error().status, 422);
  EXPECT_EQ(text.error().reason, Reason::input_expired);
  EXPECT_TRUE(own_item(alice, id, chunk)->text_removed);
}

// ---- the list ----

TEST_F(OrdersReadTest, ListsOwnOrdersNewestFirstWithTotals) {
  const std::string oldest = order(alice, "tts", "completed", 50, alice_template);
  const std::string middle = order(alice, "sfx", "failed", 40);
  const std::string newest = order(alice, "music", "in_progress", 30);
  order(bob, "tts", "created", 5);

  auto page = orders::list_orders(*db, alice, {});
  EXPECT_EQ(page.total, 3);
  EXPECT_EQ(page.page, 1);
  EXPECT_EQ(page.per_page, 20);
  EXPECT_EQ(ids_of(page), (std::vector<std::string>{newest, middle, oldest}));
  EXPECT_TRUE(page.items[0].items.empty());
}

TEST_F(OrdersReadTest, PagesNeverOverlapEvenForOrdersOfTheSameInstant) {
  std::vector<std::string> all;
  for (int i = 0; i < 5; ++i) all.push_back(order(alice, "tts", "created", 30));
  std::vector<std::string> seen;
  for (std::int64_t p = 1; p <= 3; ++p) {
    auto page = orders::list_orders(*db, alice, {.page = p, .per_page = 2});
    EXPECT_EQ(page.total, 5);
    EXPECT_EQ(page.last_page(), 3);
    for (const auto& id : ids_of(page)) seen.push_back(id);
  }
  std::sort(all.begin(), all.end());
  std::sort(seen.begin(), seen.end());
  EXPECT_EQ(seen, all);
  auto beyond = orders::list_orders(*db, alice, {.page = 4, .per_page = 2});
  EXPECT_TRUE(beyond.items.empty());
  EXPECT_EQ(beyond.total, 5);
  auto far = orders::list_orders(*db, alice, {.page = std::numeric_limits<std::int64_t>::max(), .per_page = 100});
  EXPECT_TRUE(far.items.empty());
}

TEST_F(OrdersReadTest, FiltersByStatusTemplateAndTaskTypes) {
  const std::string tts_done = order(alice, "tts", "completed", 50, alice_template);
  const std::string tts_running = order(alice, "tts", "in_progress", 45, alice_template);
  const std::string sfx = order(alice, "sfx", "completed", 40);
  const std::string music = order(alice, "music", "failed", 30);
  order(bob, "tts", "completed", 5);

  using V = std::vector<std::string>;
  EXPECT_EQ(ids_of(orders::list_orders(*db, alice, {.status = OrderStatus::completed})), (V{sfx, tts_done}));
  EXPECT_EQ(ids_of(orders::list_orders(*db, alice, {.template_id = TemplateId::parse(alice_template)})), (V{tts_running, tts_done}));
  EXPECT_EQ(ids_of(orders::list_orders(*db, alice, {.template_id = TemplateId::parse(alice_template), .status = OrderStatus::completed})),
            (V{tts_done}));
  EXPECT_EQ(ids_of(orders::list_orders(*db, alice, {.task_types = std::vector{TaskType::sfx}})), (V{sfx}));
  EXPECT_EQ(ids_of(orders::list_orders(*db, alice, {.task_types = std::vector{TaskType::music, TaskType::sfx}})), (V{music, sfx}));
  // "music, no-such-type" from the query: the unknown name is dropped where the query is parsed.
  EXPECT_EQ(ids_of(orders::list_orders(*db, alice, {.task_types = std::vector{TaskType::music}})), (V{music}));
  EXPECT_EQ(ids_of(orders::list_orders(*db, alice, {.status = OrderStatus::cancelled})), V{});
  EXPECT_EQ(ids_of(orders::list_orders(*db, alice, {.template_id = TemplateId::parse(kMissing)})), V{});
  // A filter-only type is a valid filter that simply has no orders here.
  EXPECT_EQ(ids_of(orders::list_orders(*db, alice, {.task_types = std::vector{TaskType::image}})), V{});
}

TEST_F(OrdersReadTest, UnknownTaskTypesGiveAnEmptyListNotAnError) {
  order(alice, "tts", "completed", 50);
  // "speech, TTS" from the query: nothing known is left, which matches nothing.
  EXPECT_FALSE(parse_task_type("speech"));
  EXPECT_FALSE(parse_task_type("TTS"));
  auto page = orders::list_orders(*db, alice, {.task_types = std::vector<TaskType>{}});
  EXPECT_TRUE(page.items.empty());
  EXPECT_EQ(page.total, 0);
  EXPECT_EQ(page.last_page(), 1);
}

// ---- over HTTP ----

using Request = bhttp::request<bhttp::string_body>;
using Response = bhttp::response<bhttp::string_body>;

Response exchange(std::uint16_t port, Request req) {
  asio::io_context ioc;
  tcp::socket socket(ioc);
  socket.connect(tcp::endpoint(asio::ip::make_address("127.0.0.1"), port));
  req.set(bhttp::field::host, "127.0.0.1");
  req.prepare_payload();
  bhttp::write(socket, req);
  beast::flat_buffer buffer;
  Response res;
  bhttp::read(socket, buffer, res);
  return res;
}

class OrdersReadHttpTest : public OrdersReadTest {
 protected:
  void SetUp() override {
    OrdersReadTest::SetUp();
    if (HasFatalFailure()) return;
    server = std::make_unique<TestServer>(TestServerOptions{db_url, redis_url, prefix}, clock, counters,
                                          [](http::Router& router, db::BlockingPool& pool, db::AsyncPg& reads) {
                                            orders::register_order_read_routes(router, pool, reads);
                                          });
    port = server->port();
    alice_key = auth::create_key(*db, {.user = alice, .scopes = *auth::preset("read_only")}).plaintext;
    bob_key = auth::create_key(*db, {.user = bob, .scopes = *auth::preset("read_only")}).plaintext;
  }

  void TearDown() override {
    server.reset();
    OrdersReadTest::TearDown();
  }

  Response call(bhttp::verb verb, const std::string& target, const std::string& key,
                const std::string& zone = "") {
    Request req{verb, target, 11};
    if (!key.empty()) req.set("X-API-KEY", key);
    if (!zone.empty()) req.set("X-Timezone", zone);
    return exchange(port, std::move(req));
  }
  Response get(const std::string& target, const std::string& key, const std::string& zone = "") {
    return call(bhttp::verb::get, target, key, zone);
  }
  static json data_of(const Response& r) { return json::parse(r.body())["data"]; }

  SystemClock clock;
  std::unique_ptr<TestServer> server;
  std::uint16_t port = 0;
  std::string alice_key, bob_key;
};

TEST_F(OrdersReadHttpTest, ShowsAnOrderWithItsItems) {
  const std::string id = order(alice, "tts", "partially_completed", 30, alice_template);
  const std::string done = item({.order_id = id, .chunk_index = 0, .status = "completed", .age_seconds = 30});
  const std::string failed = item({.order_id = id, .chunk_index = 1, .status = "failed", .age_seconds = 30,
                                   .failure = "engine_error"});
  const Response r = get("/api/orders/" + id, alice_key, "Europe/Moscow");
  ASSERT_EQ(r.result_int(), 200) << r.body();
  const json body = json::parse(r.body());
  EXPECT_EQ(body["success"], true);
  const json& data = body["data"];
  EXPECT_EQ(data["id"], id);
  EXPECT_EQ(data["status"], "partially_completed");
  EXPECT_EQ(data["template_id"], alice_template);
  EXPECT_TRUE(data["result"].is_null());
  EXPECT_TRUE(data["created_at"].get<std::string>().ends_with("+03:00"));
  ASSERT_EQ(data["items"].size(), 2u);
  EXPECT_EQ(data["items"][0]["id"], done);
  EXPECT_EQ(data["items"][0]["can_regenerate"], true);
  EXPECT_EQ(data["items"][1]["id"], failed);
  EXPECT_EQ(data["items"][1]["can_retry"], true);
  EXPECT_EQ(data["items"][1]["failure_reason"], "engine_error");
}

// A waiting order with its items and its queue position: one statement for the whole answer,
// once the key is cached.
TEST_F(OrdersReadHttpTest, AnOrderItsItemsAndItsQueuePositionAreOneStatement) {
  const std::string id = order(alice, "tts", "pending", 30, alice_template);
  item({.order_id = id, .chunk_index = 0, .status = "pending", .age_seconds = 30});
  item({.order_id = id, .chunk_index = 1, .status = "pending", .age_seconds = 30});
  ASSERT_EQ(get("/api/orders/" + id, alice_key).result_int(), 200);  // caches the key
  const auto before = counters.db_queries.load();
  const Response r = get("/api/orders/" + id, alice_key);
  EXPECT_EQ(counters.db_queries.load() - before, 1u);
  ASSERT_EQ(r.result_int(), 200) << r.body();
  const json data = data_of(r);
  EXPECT_EQ(data["items"].size(), 2u);
  EXPECT_EQ(data["queue_position"], 1);
}

TEST_F(OrdersReadHttpTest, AnswersTheSame404ForForeignMissingAndMalformedOrders) {
  const std::string id = order(alice, "tts", "created", 30);
  const std::string chunk = item({.order_id = id});
  const Response own = get("/api/orders/" + id, alice_key);
  EXPECT_EQ(own.result_int(), 200);
  std::vector<std::string> bodies;
  for (const std::string& target :
       {"/api/orders/" + id, "/api/orders/" + kMissing, std::string("/api/orders/nope"), "/api/orders/" + id + "/items",
        "/api/orders/" + id + "/items/" + chunk, "/api/orders/" + id + "/items/" + chunk + "/text"}) {
    const Response r = get(target, bob_key);
    EXPECT_EQ(r.result_int(), 404) << target;
    bodies.push_back(r.body());
  }
  for (const auto& b : bodies) EXPECT_EQ(b, bodies.front());
}

TEST_F(OrdersReadHttpTest, ListsItemsAsAFlatArrayAndOneItemAlone) {
  const std::string id = order(alice, "tts", "partially_completed", 30);
  const std::string first = item({.order_id = id, .chunk_index = 0, .status = "failed", .age_seconds = 20});
  const std::string retry = item({.order_id = id, .type = "retry", .chunk_index = 0, .status = "pending",
                                  .attempt = 2, .parent = first, .age_seconds = 10, .paragraph = 0});
  const Response list = get("/api/orders/" + id + "/items", alice_key);
  ASSERT_EQ(list.result_int(), 200) << list.body();
  const json items = data_of(list);
  ASSERT_TRUE(items.is_array());
  ASSERT_EQ(items.size(), 2u);
  EXPECT_EQ(items[0]["id"], first);
  EXPECT_EQ(items[1]["id"], retry);
  EXPECT_EQ(items[1]["item_type"], "retry");
  EXPECT_EQ(items[1]["parent_item_id"], first);
  EXPECT_TRUE(items[1]["paragraph_index"].is_null());
  EXPECT_EQ(items[1]["can_retry"], false);
  EXPECT_EQ(items[0]["can_retry"], false);  // a retry is already queued

  const Response one = get("/api/orders/" + id + "/items/" + retry, alice_key);
  ASSERT_EQ(one.result_int(), 200) << one.body();
  EXPECT_EQ(data_of(one), items[1]);
}

TEST_F(OrdersReadHttpTest, ServesTheTextAndRefusesItOnceRemoved) {
  const std::string id = order(alice, "tts", "completed", 30);
  const std::string chunk = item({.order_id = id, .status = "completed", .text = "Hello there."});
  const Response r = get("/api/orders/" + id + "/items/" + chunk + "/text", alice_key);
  ASSERT_EQ(r.result_int(), 200) << r.body();
  const json data = data_of(r);
  EXPECT_EQ(data["text"], "Hello there.");
  for (const char* field : {"length", "original_text_length", "free_length", "billable_length", "max_billable_length",
                            "max_raw_length", "surcharge_applies", "capacity_unit", "raw_length"}) {
    EXPECT_TRUE(data.contains(field)) << field;
  }
  sql("DELETE FROM order_item_texts WHERE item_id = '" + chunk + "' RETURNING 1");
  const Response gone = get("/api/orders/" + id + "/items/" + chunk + "/text", alice_key);
  EXPECT_EQ(gone.result_int(), 422);
  const json body = json::parse(gone.body());
  EXPECT_EQ(body["success"], false);
  EXPECT_EQ(body.value("reason", ""), "input_expired");
  EXPECT_EQ(body.value("error_code", ""), "input_expired");
  EXPECT_FALSE(body.contains("errors"));
}

TEST_F(OrdersReadHttpTest, ListsOrdersWithPagingAndFilters) {
  const std::string tts = order(alice, "tts", "completed", 50, alice_template);
  const std::string sfx = order(alice, "sfx", "completed", 40);
  const std::string music = order(alice, "music", "failed", 30);
  order(bob, "tts", "completed", 5);

  const Response all = get("/api/orders", alice_key);
  ASSERT_EQ(all.result_int(), 200) << all.body();
  json data = data_of(all);
  EXPECT_EQ(data["total"], 3);
  EXPECT_EQ(data["current_page"], 1);
  EXPECT_EQ(data["last_page"], 1);
  EXPECT_EQ(data["per_page"], 20);
  ASSERT_EQ(data["items"].size(), 3u);
  EXPECT_EQ(data["items"][0]["id"], music);
  EXPECT_FALSE(data["items"][0].contains("items"));

  data = data_of(get("/api/orders?per_page=2&page=2", alice_key));
  EXPECT_EQ(data["last_page"], 2);
  ASSERT_EQ(data["items"].size(), 1u);
  EXPECT_EQ(data["items"][0]["id"], tts);

  data = data_of(get("/api/orders?task_type%5B%5D=sfx&task_type[]=music", alice_key));
  ASSERT_EQ(data["items"].size(), 2u);
  EXPECT_EQ(data["items"][0]["id"], music);
  EXPECT_EQ(data["items"][1]["id"], sfx);

  data = data_of(get("/api/orders?task_type=sfx", alice_key));
  ASSERT_EQ(data["items"].size(), 1u);
  EXPECT_EQ(data["items"][0]["id"], sfx);

  data = data_of(get("/api/orders?task_type=unheard-of", alice_key));
  EXPECT_EQ(data["items"], json::array());
  EXPECT_EQ(data["total"], 0);

  data = data_of(get("/api/orders?status=completed&template_id=" + alice_template, alice_key));
  ASSERT_EQ(data["items"].size(), 1u);
  EXPECT_EQ(data["items"][0]["id"], tts);
}

TEST_F(OrdersReadHttpTest, RefusesBadQueryParametersWithOne422) {
  const Response r = get("/api/orders?status=done&per_page=101&page=0&template_id=x", alice_key);
  ASSERT_EQ(r.result_int(), 422) << r.body();
  const json body = json::parse(r.body());
  EXPECT_FALSE(body.contains("success"));
  for (const char* field : {"status", "per_page", "page", "template_id"}) {
    EXPECT_TRUE(body["errors"].contains(field)) << field << " " << r.body();
  }
  EXPECT_EQ(get("/api/orders?per_page=100", alice_key).result_int(), 200);
  EXPECT_EQ(get("/api/orders?per_page=0", alice_key).result_int(), 422);
  EXPECT_EQ(get("/api/orders?status=partially_completed", alice_key).result_int(), 200);
}

TEST_F(OrdersReadHttpTest, OrdersHaveNoUpdateOrDelete) {
  const std::string id = order(alice, "tts", "created", 30);
  for (auto verb : {bhttp::verb::put, bhttp::verb::patch, bhttp::verb::delete_}) {
    const Response r = call(verb, "/api/orders/" + id, alice_key);
    EXPECT_EQ(r.result_int(), 405) << verb;
    EXPECT_EQ(r[bhttp::field::allow], "GET, HEAD") << verb;
  }
  EXPECT_EQ(get("/api/orders/" + id, alice_key).result_int(), 200);
}

TEST_F(OrdersReadHttpTest, NeedsTheOrdersReadPermission) {
  auth::ScopeSet profile_only;
  profile_only.add(auth::Scope::profile_read);
  const std::string key = auth::create_key(*db, {.user = alice, .scopes = profile_only}).plaintext;
  const std::string id = order(alice, "tts", "created", 30);
  for (const std::string& target : {std::string("/api/orders"), "/api/orders/" + id, "/api/orders/" + id + "/items"}) {
    EXPECT_EQ(get(target, key).result_int(), 403) << target;
  }
}

}  // namespace
}  // namespace mediagen::test
