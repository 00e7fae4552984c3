#include <gtest/gtest.h>

#include "mediagen/realtime/event.hpp"
#include "realtime/fanout_message.hpp"
#include "realtime/grant_record.hpp"

namespace mediagen::realtime {
namespace {

const std::string kFanoutOrderChannel = "private-order.task.0b7c2a53-2f7e-4b0e-9a51-5e7f6f0f4c11";

TEST(FanoutMessage, RoundTripsAnEventFrame) {
  const std::string frame = wire_frame({.channel = kFanoutOrderChannel, .name = "order.updated", .data = R"({"seq":3})"});
  const std::string payload = format_fanout("123", frame);  // the message views into it
  auto m = parse_fanout(payload);
  ASSERT_TRUE(m);
  EXPECT_EQ(m->origin, "123");
  EXPECT_EQ(m->channel, kFanoutOrderChannel);
  EXPECT_EQ(m->frame, frame);
  EXPECT_EQ(m->seq, 3);
}

TEST(FanoutMessage, DropsWhatIsNotAnEventOfOurChannels) {
  const auto ok = [](const std::string& frame) { return parse_fanout("9 " + frame).has_value(); };
  EXPECT_FALSE(parse_fanout(""));
  EXPECT_FALSE(parse_fanout("garbage"));
  EXPECT_FALSE(parse_fanout(" {}"));
  EXPECT_FALSE(ok("not json"));
  EXPECT_FALSE(ok("[]"));
  EXPECT_FALSE(ok(R"({"event":"order.updated","data":"{}"})"));
  EXPECT_FALSE(ok(R"({"event":"order.updated","channel":"public","data":"{}"})"));
  EXPECT_FALSE(ok(R"({"event":"order.updated","channel":")" + kFanoutOrderChannel + R"(","data":{}})"));
  EXPECT_FALSE(ok(R"({"event":"pusher:error","channel":")" + kFanoutOrderChannel + R"(","data":"{}"})"));
  EXPECT_FALSE(ok(R"({"event":"pusher_internal:subscription_succeeded","channel":")" + kFanoutOrderChannel + R"(","data":"{}"})"));
  EXPECT_FALSE(ok(R"({"event":"client-x","channel":")" + kFanoutOrderChannel + R"(","data":"{}"})"));
  EXPECT_TRUE(ok(R"({"event":"order.updated","channel":")" + kFanoutOrderChannel + R"(","data":"{}"})"));
  EXPECT_TRUE(ok(R"({"event":"ready","channel":"private-chunks.preview.5","data":"{}"})"));
}

TEST(GrantRecord, RoundTrips) {
  Grant g{.socket_id = "1.2", .channel = "private-chunks.preview.5", .key_id = ApiKeyId{7}, .user = UserId{5}};
  for (std::size_t i = 0; i < g.key_hash.size(); ++i) g.key_hash[i] = static_cast<std::uint8_t>(i * 7);
  g.expires_at = TimePoint(std::chrono::milliseconds(1'800'000'000'123));
  auto back = parse_grant_record("1.2", "private-chunks.preview.5", format_grant_record(g));
  ASSERT_TRUE(back);
  EXPECT_EQ(back->key_id, g.key_id);
  EXPECT_EQ(back->user, g.user);
  EXPECT_EQ(back->key_hash, g.key_hash);
  EXPECT_EQ(back->expires_at, g.expires_at);
  g.expires_at.reset();
  back = parse_grant_record("1.2", "c", format_grant_record(g));
  ASSERT_TRUE(back);
  EXPECT_FALSE(back->expires_at);
}

TEST(GrantRecord, RefusesDamagedRecords) {
  EXPECT_FALSE(parse_grant_record("1.2", "c", ""));
  EXPECT_FALSE(parse_grant_record("1.2", "c", "7 5"));
  EXPECT_FALSE(parse_grant_record("1.2", "c", "7 5 zz 0"));
  EXPECT_FALSE(parse_grant_record("1.2", "c", "7 5 " + std::string(64, 'g') + " 0"));
  EXPECT_FALSE(parse_grant_record("1.2", "c", "7 5 " + std::string(64, 'a') + " 0 trailing"));
  EXPECT_TRUE(parse_grant_record("1.2", "c", "7 5 " + std::string(64, 'a') + " 0"));
}

TEST(GrantRecord, RefusesAnExpiryATimePointCannotHold) {
  // Milliseconds beyond about the year 2262 overflowed the conversion to nanoseconds (found by
  // tests/fuzz/fuzz_fanout).
  const std::string head = "7 5 " + std::string(64, 'a') + " ";
  EXPECT_TRUE(parse_grant_record("1.2", "c", head + "9223372036854"));
  EXPECT_TRUE(parse_grant_record("1.2", "c", head + "-9223372036854"));
  EXPECT_FALSE(parse_grant_record("1.2", "c", head + "9223372036855"));
  EXPECT_FALSE(parse_grant_record("1.2", "c", head + "9223372036854775807"));
  EXPECT_FALSE(parse_grant_record("1.2", "c", head + "-9223372036854775808"));
}

}  // namespace
}  // namespace mediagen::realtime

namespace mediagen::realtime {
namespace {

TEST(GrantMessage, RoundTripsAndIsNotAnEvent) {
  Grant g{.socket_id = "12.34", .channel = "private-chunks.preview.5", .key_id = ApiKeyId{7}, .user = UserId{5}};
  g.key_hash.fill(0xab);
  const std::string payload = format_grant_message("99", g);
  auto m = parse_grant_message(payload);
  ASSERT_TRUE(m);
  EXPECT_EQ(m->origin, "99");
  EXPECT_EQ(m->grant.socket_id, "12.34");
  EXPECT_EQ(m->grant.channel, "private-chunks.preview.5");
  EXPECT_EQ(m->grant.key_id, ApiKeyId{7});
  EXPECT_EQ(m->grant.user, UserId{5});
  EXPECT_EQ(m->grant.key_hash, g.key_hash);
  EXPECT_FALSE(parse_fanout(payload));
}

TEST(GrantMessage, RefusesDamagedOnes) {
  const std::string record = "7 5 " + std::string(64, 'a') + " 0";
  EXPECT_TRUE(parse_grant_message("9 grant 1.2 private-chunks.preview.5 " + record));
  EXPECT_FALSE(parse_grant_message("9 grant 1.2 private-chunks.preview.5"));
  EXPECT_FALSE(parse_grant_message("9 grant x.y private-chunks.preview.5 " + record));
  EXPECT_FALSE(parse_grant_message("9 grant 1.2 public-channel " + record));
  EXPECT_FALSE(parse_grant_message("9 grants 1.2 private-chunks.preview.5 " + record));
  EXPECT_FALSE(parse_grant_message("grant 1.2 private-chunks.preview.5 " + record));
  const std::string event = R"(9 {"event":"ready","channel":"private-chunks.preview.5","data":"{}"})";
  EXPECT_FALSE(parse_grant_message(event));
}

}  // namespace
}  // namespace mediagen::realtime
