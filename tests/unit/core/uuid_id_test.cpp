// Ids parsed once where they enter, and task types as values (core/uuid_id.hpp, task_type.hpp).
#include <gtest/gtest.h>

#include <chrono>
#include <set>
#include <string>

#include "mediagen/core/task_type.hpp"
#include "mediagen/core/uuid.hpp"
#include "mediagen/core/uuid_id.hpp"

namespace mediagen {
namespace {

TEST(UuidIdTest, ParsesTheCanonicalFormInEitherCaseAndKeepsItLowercase) {
  const auto id = OrderId::parse("0F8FAD5B-D9CB-469F-A165-70867728950E");
  ASSERT_TRUE(id);
  EXPECT_EQ(id->str(), "0f8fad5b-d9cb-469f-a165-70867728950e");
  EXPECT_EQ(*id, *OrderId::parse("0f8fad5b-d9cb-469f-a165-70867728950e"));
  EXPECT_EQ(*id, std::string("0f8fad5b-d9cb-469f-a165-70867728950e"));
}

TEST(UuidIdTest, RefusesEverythingElse) {
  for (const char* text : {"", "nope", "0f8fad5b-d9cb-469f-a165-70867728950", "0f8fad5b-d9cb-469f-a165-70867728950ee",
                           "0f8fad5bxd9cb-469f-a165-70867728950e", "0f8fad5b-d9cb-469f-a165-70867728950g",
                           "{0f8fad5b-d9cb-469f-a165-70867728950e}", "0f8fad5bd9cb469fa16570867728950e"}) {
    EXPECT_FALSE(ItemId::parse(text)) << text;
  }
}

TEST(UuidIdTest, FreshIdsAreVersion4AndDistinct) {
  std::set<std::string> seen;
  for (int i = 0; i < 100; ++i) {
    const auto token = LeaseToken::fresh();
    ASSERT_TRUE(LeaseToken::parse(token.str())) << token;
    EXPECT_EQ(token.str()[14], '4');
    seen.insert(token.str());
  }
  EXPECT_EQ(seen.size(), 100u);
}

TEST(UuidIdTest, TimeOrderedIdsAreVersion7AndCarryTheirMillisecond) {
  using namespace std::chrono;
  const system_clock::time_point at{milliseconds{0x0123456789abLL}};
  const std::string id = time_ordered_uuid(at);
  ASSERT_TRUE(OrderId::parse(id)) << id;
  EXPECT_EQ(id.substr(0, 13), "01234567-89ab");
  EXPECT_EQ(id[14], '7');
  EXPECT_NE(std::string("89ab").find(id[19]), std::string::npos) << id;  // the RFC 9562 variant
  EXPECT_NE(time_ordered_uuid(at), id);                                // 74 random bits after the time
  // Ids of later milliseconds sort after earlier ones, as text and so as PostgreSQL uuids.
  EXPECT_LT(id, time_ordered_uuid(at + milliseconds{1}));
  EXPECT_LT(time_ordered_uuid(at + milliseconds{1}), time_ordered_uuid(at + hours{24 * 365}));
  EXPECT_EQ(time_ordered_uuid().substr(14, 1), "7");
}

TEST(TaskTypeTest, NamesRoundTripAndOnlyFourCanBeOrdered) {
  for (const TaskType t : {TaskType::tts, TaskType::image, TaskType::txt2img, TaskType::remix, TaskType::image_edit,
                           TaskType::voice_clone, TaskType::sfx, TaskType::music, TaskType::voice_search}) {
    EXPECT_EQ(parse_task_type(task_type_name(t)), t) << task_type_name(t);
  }
  EXPECT_TRUE(is_orderable(TaskType::voice_search));
  EXPECT_FALSE(is_orderable(TaskType::txt2img));
  EXPECT_TRUE(is_single_shot(TaskType::sfx));
  EXPECT_TRUE(is_single_shot(TaskType::music));
  EXPECT_FALSE(is_single_shot(TaskType::tts));
  EXPECT_FALSE(parse_task_type("Tts"));
  EXPECT_FALSE(parse_task_type("tts "));
}

}  // namespace
}  // namespace mediagen
