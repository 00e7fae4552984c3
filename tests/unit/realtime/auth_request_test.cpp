// The body of POST /broadcasting/auth read without a server: both encodings, the body deciding
// when there is no Content-Type, and the refusals (tests/integration/realtime_auth_test.cpp runs
// the same through the HTTP server).
#include "realtime/auth_request.hpp"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace mediagen::realtime {
namespace {

const std::string kChannel = "private-order.task.0f8fad5b-d9cb-469f-a165-70867728950e";
constexpr std::string_view kForm = "application/x-www-form-urlencoded";

std::vector<std::string> failed_fields(const Result<AuthRequest>& r) {
  std::vector<std::string> out;
  if (!r) {
    for (const auto& f : r.error().fields) out.push_back(f.field);
  }
  return out;
}

TEST(AuthRequest, ReadsAFormAndJson) {
  auto form = parse_auth_request(kForm, "socket_id=1234.5678&channel_name=" + kChannel + "&extra=1");
  ASSERT_TRUE(form);
  EXPECT_EQ(form->socket_id, "1234.5678");
  EXPECT_EQ(form->channel_name, kChannel);
  EXPECT_EQ(form->channel.kind, ChannelKind::order);

  auto json = parse_auth_request("application/json; charset=utf-8",
                                 R"({"socket_id":"1.2","channel_name":"private-voice-clones.7"})");
  ASSERT_TRUE(json);
  EXPECT_EQ(json->socket_id, "1.2");
  EXPECT_EQ(json->channel.user, UserId{7});
}

TEST(AuthRequest, WithoutAContentTypeTheBodyDecides) {
  EXPECT_TRUE(parse_auth_request(std::nullopt, R"(  {"socket_id":"1.2","channel_name":"private-chunks.preview.5"})"));
  EXPECT_TRUE(parse_auth_request("", "socket_id=1.2&channel_name=private-chunks.preview.5"));
}

TEST(AuthRequest, RefusesOtherTypesAndBrokenJson) {
  EXPECT_EQ(read_auth_fields("text/plain", "socket_id=1.2").error().status, 415);
  EXPECT_EQ(read_auth_fields("application/json", R"({"socket_id":)").error().status, 422);
  EXPECT_EQ(read_auth_fields("application/json", "[1]").error().status, 422);
  // A blank JSON body has neither field: the 422 then names both.
  EXPECT_EQ(failed_fields(parse_auth_request("application/json", " \r\n")),
            (std::vector<std::string>{"socket_id", "channel_name"}));
}

TEST(AuthRequest, NamesEveryBadField) {
  EXPECT_EQ(failed_fields(parse_auth_request("application/json", R"({"socket_id":1,"channel_name":null})")),
            (std::vector<std::string>{"socket_id", "channel_name"}));
  EXPECT_EQ(failed_fields(parse_auth_request(kForm, "socket_id=12&channel_name=presence-room")),
            (std::vector<std::string>{"socket_id", "channel_name"}));
  EXPECT_EQ(failed_fields(parse_auth_request(kForm, "socket_id=1.2&channel_name=")),
            (std::vector<std::string>{"channel_name"}));
}

}  // namespace
}  // namespace mediagen::realtime
