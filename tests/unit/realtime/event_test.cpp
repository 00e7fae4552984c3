#include "mediagen/realtime/event.hpp"

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include <string>

namespace mediagen::realtime {
namespace {

using json = nlohmann::json;

TEST(WireFrame, CarriesTheDataAsAJsonString) {
  const Event event{"private-order.task.0f8fad5b-d9cb-469f-a165-70867728950e", "order.updated",
                    R"({"order_id":"0f8fad5b-d9cb-469f-a165-70867728950e","status":"pending","seq":3})"};
  const std::string frame = wire_frame(event);
  EXPECT_EQ(frame,
            R"({"event":"order.updated","channel":"private-order.task.0f8fad5b-d9cb-469f-a165-70867728950e",)"
            R"("data":"{\"order_id\":\"0f8fad5b-d9cb-469f-a165-70867728950e\",\"status\":\"pending\",\"seq\":3}"})");

  const json parsed = json::parse(frame);
  ASSERT_TRUE(parsed["data"].is_string());
  EXPECT_EQ(json::parse(parsed["data"].get<std::string>()),
            json({{"order_id", "0f8fad5b-d9cb-469f-a165-70867728950e"}, {"status", "pending"}, {"seq", 3}}));
}

TEST(WireFrame, EscapesQuotesBackslashesAndControlCharacters) {
  // The payload's own strings hold escapes already; the frame escapes the whole text again.
  const json payload = {{"text", "say \"hi\"\\ \n\t\r\x01\x1f end"}, {"unicode", "ünï €"}};
  const Event event{"private-chunks.preview.1", "re\"ady\\\n", payload.dump()};
  const std::string frame = wire_frame(event);

  for (char c : frame) {
    EXPECT_GE(static_cast<unsigned char>(c), 0x20) << "a raw control character in the frame";
  }
  const json parsed = json::parse(frame);
  EXPECT_EQ(parsed.size(), 3u);
  EXPECT_EQ(parsed["event"], "re\"ady\\\n");
  EXPECT_EQ(parsed["channel"], "private-chunks.preview.1");
  ASSERT_TRUE(parsed["data"].is_string());
  EXPECT_EQ(parsed["data"].get<std::string>(), payload.dump());
  EXPECT_EQ(json::parse(parsed["data"].get<std::string>()), payload);
}

TEST(WireFrame, EscapesEveryControlByte) {
  std::string raw;
  for (int c = 0; c < 0x20; ++c) raw += static_cast<char>(c);
  const Event event{"private-chunks.preview.1", "ready", json({{"all", raw}}).dump() + raw};
  const json parsed = json::parse(wire_frame(event));
  EXPECT_EQ(parsed["data"].get<std::string>(), event.data);
}

TEST(WireFrame, PutsEventChannelAndDataInThatOrder) {
  const std::string frame = wire_frame({"private-voice-clones.3", "voice_clone.updated", "{}"});
  EXPECT_EQ(frame, R"({"event":"voice_clone.updated","channel":"private-voice-clones.3","data":"{}"})");
}

}  // namespace
}  // namespace mediagen::realtime
