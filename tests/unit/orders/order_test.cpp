// Names of order values and the storage keys of an order's files.
#include "mediagen/orders/order.hpp"

#include <gtest/gtest.h>

namespace mediagen::orders {
namespace {

TEST(OrderNames, EveryStatusReadsBackFromItsName) {
  for (int i = 0; i <= static_cast<int>(OrderStatus::partially_completed); ++i) {
    const auto s = static_cast<OrderStatus>(i);
    EXPECT_EQ(order_status_from_string(to_string(s)), s);
  }
  for (int i = 0; i <= static_cast<int>(ItemStatus::policy_flagged); ++i) {
    const auto s = static_cast<ItemStatus>(i);
    EXPECT_EQ(item_status_from_string(to_string(s)), s);
  }
  for (int i = 0; i <= static_cast<int>(ItemType::regeneration); ++i) {
    const auto t = static_cast<ItemType>(i);
    EXPECT_EQ(item_type_from_string(to_string(t)), t);
  }
  EXPECT_EQ(to_string(OrderStatus::partially_completed), "partially_completed");
  EXPECT_EQ(to_string(ItemStatus::policy_flagged), "policy_flagged");
  EXPECT_FALSE(order_status_from_string("done"));
  EXPECT_FALSE(order_status_from_string("Completed"));
  EXPECT_FALSE(item_status_from_string(""));
  EXPECT_FALSE(item_type_from_string("original"));
}

TEST(OrderNames, FiveStatusesAreTerminal) {
  int terminal = 0;
  for (int i = 0; i <= static_cast<int>(OrderStatus::partially_completed); ++i) {
    if (is_terminal(static_cast<OrderStatus>(i))) ++terminal;
  }
  EXPECT_EQ(terminal, 5);
  EXPECT_TRUE(is_terminal(OrderStatus::result_delivered));
  EXPECT_TRUE(is_terminal(OrderStatus::compensated));
  EXPECT_FALSE(is_terminal(OrderStatus::partially_completed));
  EXPECT_FALSE(is_terminal(OrderStatus::pending));
}

TEST(OrderNames, NineTaskTypesOfWhichFourCanBeOrdered) {
  for (const char* t : {"tts", "image", "txt2img", "remix", "image_edit", "voice_clone", "sfx", "music",
                        "voice_search"}) {
    ASSERT_TRUE(parse_task_type(t).has_value()) << t;
    EXPECT_EQ(task_type_name(*parse_task_type(t)), t);
  }
  for (const char* t : {"tts", "sfx", "music", "voice_search"}) EXPECT_TRUE(is_orderable(*parse_task_type(t))) << t;
  for (const char* t : {"image", "txt2img", "remix", "image_edit", "voice_clone"}) {
    EXPECT_FALSE(is_orderable(*parse_task_type(t))) << t;
  }
  EXPECT_FALSE(parse_task_type("TTS").has_value());
  EXPECT_FALSE(parse_task_type("").has_value());
  EXPECT_FALSE(parse_task_type("speech").has_value());
}

TEST(OrderStorage, KeysLiveUnderTheOrdersFolder) {
  const std::string id = "6f1c2a8e-3b4d-4e5f-8a9b-0c1d2e3f4a5b";
  EXPECT_EQ(order_storage_prefix(id), "orders/" + id + "/");
  EXPECT_EQ(item_audio_key(id, "it", "claim"), "orders/" + id + "/items/it.claim.mp3");
  EXPECT_EQ(result_audio_key(id), "orders/" + id + "/result.mp3");
  EXPECT_EQ(result_subtitles_key(id, "srt"), "orders/" + id + "/result.srt");
  EXPECT_EQ(result_subtitles_key(id, ".vtt"), "orders/" + id + "/result.vtt");
}

}  // namespace
}  // namespace mediagen::orders
