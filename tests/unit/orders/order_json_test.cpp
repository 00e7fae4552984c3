// The Order and OrderItem objects of spec 2.3 and 2.4 as the API writes them.
#include "mediagen/orders/reads.hpp"

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>


namespace mediagen::orders {
namespace {

using json = nlohmann::json;

TimePoint at(std::string_view iso) { return *parse_iso8601(iso); }

Order sample_order() {
  Order o;
  o.id = "6f1c2a8e-3b4d-4e5f-8a9b-0c1d2e3f4a5b";
  o.user_id = UserId{7};
  o.task_type = TaskType::tts;
  o.status = OrderStatus::in_progress;
  o.service_key = "provider_a";
  o.template_id = "11111111-2222-4333-8444-555555555555";
  o.config_override_json = R"({"generation_mode": "paragraph"})";
  o.generation_mode = "paragraph";
  o.price_units = 125;
  o.tokens_from_quota = 300;
  o.tokens_from_payg = 1200;
  o.created_at = at("2026-01-02T03:04:05Z");
  o.updated_at = at("2026-01-02T03:05:06Z");
  return o;
}

Item sample_item() {
  Item i;
  i.id = "aaaaaaaa-bbbb-4ccc-8ddd-eeeeeeeeeeee";
  i.order_id = sample_order().id;
  i.type = ItemType::chunk;
  i.chunk_index = 3;
  i.paragraph_index = 1;
  i.attempt_number = 1;
  i.status = ItemStatus::completed;
  i.original_text_length = 480;
  i.current_text_length = 470;
  i.price_units = 480;
  i.consumed_units = 480;
  i.remaining_locked = 0;
  i.result_path = "orders/6f1c2a8e-3b4d-4e5f-8a9b-0c1d2e3f4a5b/items/aaaaaaaa-bbbb-4ccc-8ddd-eeeeeeeeeeee.mp3";
  i.result_size = 12345;
  i.duration_ms = 30500;
  i.can_regenerate = true;
  i.created_at = at("2026-01-02T03:04:05Z");
  i.updated_at = at("2026-01-02T03:06:00Z");
  return i;
}

// Keys in the order they were written.
json keys_of(std::string_view text) {
  const auto doc = nlohmann::ordered_json::parse(text);
  json out = json::array();
  for (const auto& [k, v] : doc.items()) out.push_back(k);
  return out;
}

TEST(OrderJson, WritesTheOrderFieldsOfTheSpec) {
  const auto text = order_json(sample_order(), TimeZone::utc());
  const auto j = json::parse(text);
  EXPECT_EQ(j["id"], "6f1c2a8e-3b4d-4e5f-8a9b-0c1d2e3f4a5b");
  EXPECT_EQ(j["status"], "in_progress");
  EXPECT_EQ(j["task_type"], "tts");
  EXPECT_EQ(j["template_id"], "11111111-2222-4333-8444-555555555555");
  EXPECT_EQ(j["service_key"], "provider_a");
  EXPECT_EQ(j["generation_mode"], "paragraph");
  EXPECT_EQ(j["config_override"], json({{"generation_mode", "paragraph"}}));
  EXPECT_EQ(j["price_units"], 125);
  EXPECT_EQ(j["tokens_from_quota"], 300);
  EXPECT_EQ(j["tokens_from_payg"], 1200);
  EXPECT_TRUE(j["retry_of"].is_null());
  ASSERT_TRUE(j.contains("failure_reason"));
  EXPECT_TRUE(j["failure_reason"].is_null());
  EXPECT_FALSE(j.contains("items"));
  EXPECT_FALSE(j.contains("user_id"));
  EXPECT_EQ(text.find("\"items\""), std::string::npos);
}

TEST(OrderJson, AnOrderWhoseStitchGaveUpNamesItsFailureReason) {
  auto o = sample_order();
  o.status = OrderStatus::failed;
  o.failure_reason = OrderFailure::stitch_failed;
  const auto j = json::parse(order_json(o, TimeZone::utc()));
  EXPECT_EQ(j["failure_reason"], "stitch_failed");
  EXPECT_TRUE(j["result"].is_null());
}

TEST(OrderJson, ResultIsNullUntilTheOrderHasFiles) {
  auto o = sample_order();
  EXPECT_TRUE(json::parse(order_json(o, TimeZone::utc()))["result"].is_null());
  o.status = OrderStatus::completed;
  o.result_files = {"orders/x/result.mp3"};
  o.result_service_files = {"orders/x/result.srt", "orders/x/result.vtt"};
  o.result_duration_ms = 61000;
  const auto result = json::parse(order_json(o, TimeZone::utc()))["result"];
  EXPECT_EQ(result["files"], json({"orders/x/result.mp3"}));
  EXPECT_EQ(result["service_files"], json({"orders/x/result.srt", "orders/x/result.vtt"}));
  EXPECT_EQ(result["duration_ms"], 61000);
}

TEST(OrderJson, MusicWithoutSubtitlesHasAnEmptyServiceFileList) {
  auto o = sample_order();
  o.task_type = TaskType::music;
  o.template_id.reset();
  o.result_files = {"orders/x/result-1.mp3", "orders/x/result-2.mp3"};
  const auto j = json::parse(order_json(o, TimeZone::utc()));
  EXPECT_TRUE(j["template_id"].is_null());
  EXPECT_EQ(j["result"]["files"].size(), 2u);
  EXPECT_EQ(j["result"]["service_files"], json::array());
  EXPECT_TRUE(j["result"]["duration_ms"].is_null());
}

TEST(OrderJson, RendersTimesInTheRequestedZoneWithTheirOffset) {
  const auto tz = TimeZone::parse("Europe/Moscow");
  ASSERT_TRUE(tz);
  const auto j = json::parse(order_json(sample_order(), *tz));
  EXPECT_EQ(j["created_at"], "2026-01-02T06:04:05+03:00");
  EXPECT_EQ(j["updated_at"], "2026-01-02T06:05:06+03:00");
}

TEST(OrderJson, ListsItemsOnlyWhenAsked) {
  auto o = sample_order();
  o.items = {sample_item(), sample_item()};
  o.items[1].id = "bbbbbbbb-bbbb-4ccc-8ddd-eeeeeeeeeeee";
  EXPECT_FALSE(json::parse(order_json(o, TimeZone::utc()))["items"].is_array());
  const auto j = json::parse(order_json(o, TimeZone::utc(), WithItems::yes));
  ASSERT_EQ(j["items"].size(), 2u);
  EXPECT_EQ(j["items"][1]["id"], "bbbbbbbb-bbbb-4ccc-8ddd-eeeeeeeeeeee");
  o.items.clear();
  EXPECT_EQ(json::parse(order_json(o, TimeZone::utc(), WithItems::yes))["items"], json::array());
}

TEST(OrderJson, WritesTheItemFieldsOfTheSpecInOrder) {
  const auto text = item_json(sample_item(), TimeZone::utc());
  const auto j = json::parse(text);
  EXPECT_EQ(keys_of(text), json({"id", "order_id", "item_type", "chunk_index", "paragraph_index", "parent_item_id",
                              "original_text_length", "current_text_length", "price_units", "consumed_units",
                              "remaining_locked", "status", "result_file", "duration_ms", "attempt_number",
                              "can_retry", "can_regenerate", "failure_reason", "created_at", "updated_at"}));
  EXPECT_EQ(j["item_type"], "chunk");
  EXPECT_EQ(j["chunk_index"], 3);
  EXPECT_EQ(j["paragraph_index"], 1);
  EXPECT_TRUE(j["parent_item_id"].is_null());
  EXPECT_EQ(j["original_text_length"], 480);
  EXPECT_EQ(j["current_text_length"], 470);
  EXPECT_EQ(j["price_units"], 480);
  EXPECT_EQ(j["consumed_units"], 480);
  EXPECT_EQ(j["remaining_locked"], 0);
  EXPECT_EQ(j["status"], "completed");
  EXPECT_EQ(j["result_file"]["path"],
            "orders/6f1c2a8e-3b4d-4e5f-8a9b-0c1d2e3f4a5b/items/aaaaaaaa-bbbb-4ccc-8ddd-eeeeeeeeeeee.mp3");
  EXPECT_EQ(j["result_file"]["size"], 12345);
  EXPECT_EQ(j["duration_ms"], 30500);
  EXPECT_EQ(j["attempt_number"], 1);
  EXPECT_EQ(j["can_retry"], false);
  EXPECT_EQ(j["can_regenerate"], true);
  EXPECT_TRUE(j["failure_reason"].is_null());
}

TEST(OrderJson, AnUnfinishedItemHasNoFileAndNoDuration) {
  auto i = sample_item();
  i.status = ItemStatus::processing;
  i.result_path.reset();
  i.result_size.reset();
  i.duration_ms.reset();
  const auto j = json::parse(item_json(i, TimeZone::utc()));
  EXPECT_TRUE(j["result_file"].is_null());
  EXPECT_TRUE(j["duration_ms"].is_null());
}

TEST(OrderJson, RetriesAndRegenerationsCarryNoParagraphLink) {
  for (auto type : {ItemType::retry, ItemType::regeneration}) {
    auto i = sample_item();
    i.type = type;
    i.parent_item_id = "cccccccc-bbbb-4ccc-8ddd-eeeeeeeeeeee";
    const auto j = json::parse(item_json(i, TimeZone::utc()));
    EXPECT_EQ(j["item_type"], to_string(type));
    EXPECT_TRUE(j["paragraph_index"].is_null()) << to_string(type);
    EXPECT_EQ(j["parent_item_id"], "cccccccc-bbbb-4ccc-8ddd-eeeeeeeeeeee");
  }
  auto ordinary = sample_item();
  ordinary.paragraph_index.reset();
  EXPECT_TRUE(json::parse(item_json(ordinary, TimeZone::utc()))["paragraph_index"].is_null());
}

TEST(OrderJson, FailureReasonOnlyOnFailedAndPolicyFlaggedItems) {
  auto i = sample_item();
  i.failure_reason = "engine_error";
  for (auto [status, shown] : {std::pair{ItemStatus::failed, true}, std::pair{ItemStatus::policy_flagged, true},
                               std::pair{ItemStatus::completed, false}, std::pair{ItemStatus::pending, false},
                               std::pair{ItemStatus::processing, false}}) {
    i.status = status;
    const auto j = json::parse(item_json(i, TimeZone::utc()));
    if (shown) EXPECT_EQ(j["failure_reason"], "engine_error") << to_string(status);
    else EXPECT_TRUE(j["failure_reason"].is_null()) << to_string(status);
  }
}

TEST(OrderJson, WritesAFlatItemArray) {
  auto a = sample_item();
  auto b = sample_item();
  b.type = ItemType::retry;
  b.attempt_number = 2;
  const auto j = json::parse(items_json({a, b}, TimeZone::utc()));
  ASSERT_TRUE(j.is_array());
  ASSERT_EQ(j.size(), 2u);
  EXPECT_EQ(j[1]["attempt_number"], 2);
  EXPECT_EQ(json::parse(items_json({}, TimeZone::utc())), json::array());
}

TEST(OrderJson, WritesAPageWithItsCounts) {
  OrderPage page;
  page.items = {sample_order()};
  page.page = 3;
  page.per_page = 20;
  page.total = 41;
  const auto text = order_page_json(page, TimeZone::utc());
  const auto j = json::parse(text);
  EXPECT_EQ(keys_of(text), json({"items", "current_page", "last_page", "per_page", "total"}));
  EXPECT_EQ(j["items"].size(), 1u);
  EXPECT_FALSE(j["items"][0].contains("items"));
  EXPECT_EQ(j["current_page"], 3);
  EXPECT_EQ(j["last_page"], 3);
  EXPECT_EQ(j["per_page"], 20);
  EXPECT_EQ(j["total"], 41);
}

TEST(OrderJson, AnEmptyPageHasOneLastPage) {
  OrderPage page;
  const auto j = json::parse(order_page_json(page, TimeZone::utc()));
  EXPECT_EQ(j["items"], json::array());
  EXPECT_EQ(j["last_page"], 1);
  EXPECT_EQ(j["total"], 0);
}

TEST(OrderJson, WritesTheTextFieldsOfAnItem) {
  ItemText t;
  t.text = "Say \"hi\"\nПривет";
  t.fields = {.length = 15, .original_text_length = 20, .free_length = 20, .billable_length = 15,
              .max_billable_length = 24, .max_raw_length = 5000, .surcharge_applies = false,
              .capacity_unit = CapacityUnit::utf8_bytes, .raw_length = 21};
  const auto text = item_text_json(t);
  const auto j = json::parse(text);
  EXPECT_EQ(keys_of(text), json({"text", "length", "original_text_length", "free_length", "billable_length",
                              "max_billable_length", "max_raw_length", "surcharge_applies", "capacity_unit",
                              "raw_length"}));
  EXPECT_EQ(j["text"], "Say \"hi\"\nПривет");
  EXPECT_EQ(j["length"], 15);
  EXPECT_EQ(j["max_billable_length"], 24);
  EXPECT_EQ(j["max_raw_length"], 5000);
  EXPECT_EQ(j["surcharge_applies"], false);
  EXPECT_EQ(j["capacity_unit"], "utf8_bytes");
  EXPECT_EQ(j["raw_length"], 21);
}

// A voice search's result is data, not files: the Order keeps its shape (files and
// service_files are there, empty) and the ranked voices join them.
TEST(OrderJson, AVoiceSearchResultListsVoicesBesideNoFiles) {
  Order o = sample_order();
  o.task_type = TaskType::voice_search;
  o.status = OrderStatus::completed;
  o.template_id.reset();
  o.result_duration_ms = 4200;
  o.result_data_json =
      R"({"voices": [{"voice_id": "en-us-ava", "service": "provider_b", "name": "Ava", "score": 0.91}],)"
      R"( "truncated": false, "analysed_seconds": 4.2})";
  const auto j = json::parse(order_json(o, TimeZone::utc()));
  const auto& result = j["result"];
  EXPECT_EQ(result["files"], json::array());
  EXPECT_EQ(result["service_files"], json::array());
  EXPECT_EQ(result["duration_ms"], 4200);
  ASSERT_EQ(result["voices"].size(), 1u);
  EXPECT_EQ(result["voices"][0]["voice_id"], "en-us-ava");
  EXPECT_EQ(result["voices"][0]["service"], "provider_b");
  EXPECT_EQ(result["truncated"], false);
  EXPECT_DOUBLE_EQ(result["analysed_seconds"].get<double>(), 4.2);
  EXPECT_TRUE(j["template_id"].is_null());
}

}  // namespace
}  // namespace mediagen::orders
