#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "realtime/pusher_frames.hpp"

namespace mediagen::realtime {
namespace {

using nlohmann::json;

TEST(PusherFrames, ConnectionEstablishedCarriesDataAsAJsonString) {
  auto f = json::parse(connection_established_frame("12.34", 120));
  EXPECT_EQ(f["event"], "pusher:connection_established");
  ASSERT_TRUE(f["data"].is_string());
  auto data = json::parse(f["data"].get<std::string>());
  EXPECT_EQ(data["socket_id"], "12.34");
  EXPECT_EQ(data["activity_timeout"], 120);
}

TEST(PusherFrames, ErrorCarriesCodeAndMessageAsAnObject) {
  auto f = json::parse(error_frame(4009, "no \"way\""));
  EXPECT_EQ(f["event"], "pusher:error");
  EXPECT_EQ(f["data"]["code"], 4009);
  EXPECT_EQ(f["data"]["message"], "no \"way\"");
}

TEST(PusherFrames, SubscriptionFramesNameTheChannel) {
  auto ok = json::parse(subscription_succeeded_frame("private-chunks.preview.7"));
  EXPECT_EQ(ok["event"], "pusher_internal:subscription_succeeded");
  EXPECT_EQ(ok["channel"], "private-chunks.preview.7");
  auto refused = json::parse(subscription_error_frame("private-chunks.preview.7", 401, "bad"));
  EXPECT_EQ(refused["event"], "pusher:subscription_error");
  EXPECT_EQ(refused["channel"], "private-chunks.preview.7");
  auto data = json::parse(refused["data"].get<std::string>());
  EXPECT_EQ(data["status"], 401);
  EXPECT_EQ(data["type"], "AuthError");
}

TEST(PusherFrames, ReadsSubscribeWithObjectOrStringData) {
  auto a = parse_client_message(R"({"event":"pusher:subscribe","data":{"channel":"c","auth":"k:s"}})");
  ASSERT_TRUE(a.message);
  EXPECT_EQ(a.message->event, "pusher:subscribe");
  EXPECT_EQ(a.message->channel, "c");
  EXPECT_EQ(a.message->auth, "k:s");
  auto b = parse_client_message(R"({"event":"pusher:subscribe","data":"{\"channel\":\"c\"}"})");
  ASSERT_TRUE(b.message);
  EXPECT_EQ(b.message->channel, "c");
  EXPECT_EQ(b.message->auth, "");
}

TEST(PusherFrames, RefusesMalformedMessages) {
  EXPECT_EQ(parse_client_message("garbage").error, ClientMessageError::not_json);
  EXPECT_EQ(parse_client_message("").error, ClientMessageError::not_json);
  EXPECT_EQ(parse_client_message("[1,2]").error, ClientMessageError::not_object);
  EXPECT_EQ(parse_client_message(R"({"data":{}})").error, ClientMessageError::no_event);
  EXPECT_EQ(parse_client_message(R"({"event":5})").error, ClientMessageError::no_event);
  EXPECT_EQ(parse_client_message(R"({"event":"pusher:subscribe"})").error, ClientMessageError::bad_data);
  EXPECT_EQ(parse_client_message(R"({"event":"pusher:subscribe","data":{"channel":7}})").error,
            ClientMessageError::bad_data);
  EXPECT_EQ(parse_client_message(R"({"event":"pusher:subscribe","data":{"channel":"c","auth":[]}})").error,
            ClientMessageError::bad_data);
  EXPECT_EQ(parse_client_message(R"({"event":"pusher:unsubscribe","data":"not json"})").error,
            ClientMessageError::bad_data);
  EXPECT_FALSE(parse_client_message("{\"event\":\"pusher:ping\",\"data\":\"\xff\xfe\"}").message);
}

TEST(PusherFrames, ReadsTheSeqOfAnEvent) {
  EXPECT_EQ(event_seq(R"({"order_id":"x","seq":42})"), 42);
  EXPECT_EQ(event_seq(R"({"preview_id":"x"})"), 0);
  EXPECT_EQ(event_seq(R"({"seq":"42"})"), 0);
  EXPECT_EQ(event_seq("not json \"seq\""), 0);
}

}  // namespace
}  // namespace mediagen::realtime
