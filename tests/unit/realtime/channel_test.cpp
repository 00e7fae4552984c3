#include "mediagen/realtime/channel.hpp"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace mediagen::realtime {
namespace {

const std::string kOrder = "0f8fad5b-d9cb-469f-a165-70867728950e";

TEST(Channel, ParsesAnOrderChannel) {
  const auto c = parse_channel("private-order.task." + kOrder);
  ASSERT_TRUE(c);
  EXPECT_EQ(c->kind, ChannelKind::order);
  EXPECT_EQ(c->order_id->str(), kOrder);
}

TEST(Channel, ParsesTheThreePerUserChannels) {
  const auto preview = parse_channel("private-chunks.preview.42");
  ASSERT_TRUE(preview);
  EXPECT_EQ(preview->kind, ChannelKind::preview);
  EXPECT_EQ(preview->user, UserId{42});

  const auto clones = parse_channel("private-voice-clones.7");
  ASSERT_TRUE(clones);
  EXPECT_EQ(clones->kind, ChannelKind::voice_clones);
  EXPECT_EQ(clones->user, UserId{7});

  const auto codes = parse_channel("private-reseller.codes.9223372036854775807");
  ASSERT_TRUE(codes);
  EXPECT_EQ(codes->kind, ChannelKind::reseller_codes);
  EXPECT_EQ(codes->user, UserId{9223372036854775807});
}

TEST(Channel, BuildsTheNamesItParses) {
  EXPECT_EQ(order_channel(kOrder), "private-order.task." + kOrder);
  EXPECT_EQ(preview_channel(UserId{12}), "private-chunks.preview.12");
  EXPECT_EQ(voice_clones_channel(UserId{12}), "private-voice-clones.12");
  EXPECT_EQ(reseller_codes_channel(UserId{12}), "private-reseller.codes.12");

  for (const std::string& name : {order_channel(kOrder), preview_channel(UserId{5}), voice_clones_channel(UserId{5}),
                                  reseller_codes_channel(UserId{5})}) {
    EXPECT_TRUE(parse_channel(name)) << name;
  }
  EXPECT_EQ(parse_channel(voice_clones_channel(UserId{31}))->user, UserId{31});
}

TEST(Channel, NeedsTheScopeOfItsKind) {
  EXPECT_EQ(required_scope(ChannelKind::order), auth::Scope::orders_read);
  EXPECT_EQ(required_scope(ChannelKind::preview), auth::Scope::orders_read);
  EXPECT_EQ(required_scope(ChannelKind::voice_clones), auth::Scope::voices_read);
  EXPECT_EQ(required_scope(ChannelKind::reseller_codes), auth::Scope::reseller_read);
}

TEST(Channel, RefusesPublicPresenceAndUnknownChannels) {
  for (const std::string& name : std::vector<std::string>{
           "order.task." + kOrder,               // public
           "presence-order.task." + kOrder,      // presence
           "private-encrypted-order.task." + kOrder,
           "presence-chunks.preview.1",
           "chunks.preview.1",
           "private-foo",
           "private-",
           "private-order.task.",
           "private-chunks.preview.",
           "private-orders.task." + kOrder,
           "private-order.tasks." + kOrder,
           "private-voice_clones.1",
           "private-reseller.code.1",
           "Private-order.task." + kOrder,
           "",
       }) {
    EXPECT_FALSE(parse_channel(name)) << name;
  }
}

TEST(Channel, RefusesAMalformedOrderId) {
  for (const std::string& id : std::vector<std::string>{
           std::string("0f8fad5b-d9cb-469f-a165-70867728950"),     // short
           std::string("0f8fad5b-d9cb-469f-a165-70867728950e0"),   // long
           std::string("0f8fad5bd9cb469fa16570867728950e"),        // no dashes
           std::string("0f8fad5b-d9cb-469f-a165-70867728950g"),    // not hex
           std::string("0F8FAD5B-D9CB-469F-A165-70867728950E"),    // uppercase: not the published spelling
           std::string("0f8fad5b-d9cb-469f-a165_70867728950e"),
           std::string("0f8fad5b-d9cb-469f-a165-70867728950e.1"),
           std::string("1"),
       }) {
    EXPECT_FALSE(parse_channel("private-order.task." + id)) << id;
  }
}

TEST(Channel, RefusesAMalformedUserId) {
  const std::vector<std::string> prefixes{"private-chunks.preview.", "private-voice-clones.",
                                          "private-reseller.codes."};
  for (const std::string& prefix : prefixes) {
    for (const std::string& id : std::vector<std::string>{
             "0",
             "-1",
             "+1",
             "01",
             "007",
             "9223372036854775808",    // int64 max + 1
             "99999999999999999999",   // 20 digits
             "12345678901234567890123",
             "1.5",
             "1e3",
             "12a",
             "a12",
             " 1",
             "1 ",
             "",
         }) {
      EXPECT_FALSE(parse_channel(prefix + id)) << prefix << id;
    }
  }
}

TEST(Channel, RefusesNamesOverTwoHundredCharacters) {
  EXPECT_EQ(kMaxChannelName, 200u);
  // The longest well-formed user channel passes; the limit is checked on the whole name.
  const std::string longest = "private-reseller.codes.9223372036854775807";
  EXPECT_TRUE(parse_channel(longest));
  EXPECT_FALSE(parse_channel(longest + std::string(200, '1')));
  EXPECT_FALSE(parse_channel("private-order.task." + kOrder + std::string(200 - 19 - 36 + 1, 'a')));
  EXPECT_FALSE(parse_channel(std::string(201, 'a')));
  EXPECT_FALSE(parse_channel("private-" + std::string(10'000, 'x')));
}

TEST(Channel, RefusesCharactersPusherDoesNotAllow) {
  for (const std::string& name : std::vector<std::string>{
           std::string("private-chunks.preview.1\n"),
           std::string("private-chunks.preview.1 "),
           std::string("private-chunks.preview.1/"),
           std::string("private-chunks.preview.1\""),
           std::string("private-chunks.preview.1\0", 25),
           std::string("private-chunks.preview.\xd9\xa1"),  // ARABIC-INDIC DIGIT ONE
           std::string("private-order.task.") + kOrder + "%",
           std::string("private-order.task:") + kOrder,
       }) {
    EXPECT_FALSE(parse_channel(name)) << name;
  }
}

TEST(SocketId, AcceptsTwoRunsOfDigits) {
  for (const char* id : {"1.1", "123.456", "0.0", "12345678901234567890.12345678901234567890", "7.12345678901"}) {
    EXPECT_TRUE(valid_socket_id(id)) << id;
  }
}

TEST(SocketId, RefusesAnythingElse) {
  for (const std::string& id : std::vector<std::string>{
           std::string(""),
           std::string("."),
           std::string("1."),
           std::string(".1"),
           std::string("1"),
           std::string("a.b"),
           std::string("1.b"),
           std::string("1.2.3"),
           std::string("1..2"),
           std::string("-1.2"),
           std::string("1.-2"),
           std::string("+1.2"),
           std::string(" 1.2"),
           std::string("1.2 "),
           std::string("1.2\n"),
           std::string("1,2"),
           std::string("1.2\0", 4),
           std::string("123456789012345678901.1"),  // 21 digits
           std::string("1.123456789012345678901"),
           std::string(25, '1'),
           std::string("\xd9\xa1.1"),
       }) {
    EXPECT_FALSE(valid_socket_id(id)) << id;
  }
}

}  // namespace
}  // namespace mediagen::realtime
