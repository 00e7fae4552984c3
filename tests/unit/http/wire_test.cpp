// The response head the server writes.
#include <gtest/gtest.h>

#include "http/wire.hpp"

namespace mediagen::http::wire {
namespace {

TEST(WireHead, CarriesTypeAndLength) {
  Response r;
  r.headers = {{"ETag", "\"1-a-USD\""}};
  const auto head = serialize_head(r, 11, true, 42);
  EXPECT_EQ(head.rfind("HTTP/1.1 200 OK\r\n", 0), 0u) << head;
  EXPECT_NE(head.find("Content-Type: application/json; charset=utf-8\r\n"), std::string::npos) << head;
  EXPECT_NE(head.find("Content-Length: 42\r\n"), std::string::npos) << head;
  EXPECT_NE(head.find("ETag: \"1-a-USD\"\r\n"), std::string::npos) << head;
}

// RFC 9110 8.6: a 304's Content-Length could only be that of the 200 the client holds.
TEST(WireHead, NotModifiedHasNeitherLengthNorType) {
  Response r;
  r.status = 304;
  r.headers = {{"ETag", "\"1-a-USD\""}};
  const auto head = serialize_head(r, 11, true, 0);
  EXPECT_EQ(head.rfind("HTTP/1.1 304 Not Modified\r\n", 0), 0u) << head;
  EXPECT_EQ(head.find("Content-Length"), std::string::npos) << head;
  EXPECT_EQ(head.find("Content-Type"), std::string::npos) << head;
  EXPECT_NE(head.find("ETag: \"1-a-USD\"\r\n"), std::string::npos) << head;
  EXPECT_EQ(head.substr(head.size() - 4), "\r\n\r\n");
}

}  // namespace
}  // namespace mediagen::http::wire

namespace mediagen::http::wire {
namespace {

TEST(WireHead, AnUnsizedBodyIsChunkedWithoutALength) {
  Response r;
  r.content_type = "audio/mpeg";
  const auto head = serialize_chunked_head(r, true);
  EXPECT_NE(head.find("Transfer-Encoding: chunked\r\n"), std::string::npos);
  EXPECT_EQ(head.find("Content-Length"), std::string::npos);
  EXPECT_NE(head.find("Content-Type: audio/mpeg\r\n"), std::string::npos);
}

}  // namespace
}  // namespace mediagen::http::wire
