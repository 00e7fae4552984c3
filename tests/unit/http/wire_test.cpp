// The response head the server writes, as Beast's serializer puts it on the wire.
#include <gtest/gtest.h>

#include <boost/beast/http/write.hpp>
#include <sstream>

#include "http/wire.hpp"

namespace mediagen::http::wire {
namespace {

std::string text(const Response& r, unsigned version, bool keep_alive, std::optional<std::uint64_t> length) {
  std::ostringstream out;
  out << response_head(r, version, keep_alive, length);
  return out.str();
}

TEST(WireHead, CarriesTypeAndLength) {
  Response r;
  r.headers = {{"ETag", "\"1-a-USD\""}};
  const auto head = text(r, 11, true, 42);
  EXPECT_EQ(head.rfind("HTTP/1.1 200 OK\r\n", 0), 0u) << head;
  EXPECT_NE(head.find("Content-Type: application/json; charset=utf-8\r\n"), std::string::npos) << head;
  EXPECT_NE(head.find("Content-Length: 42\r\n"), std::string::npos) << head;
  EXPECT_NE(head.find("ETag: \"1-a-USD\"\r\n"), std::string::npos) << head;
  EXPECT_EQ(head.find("Connection"), std::string::npos) << head;
  EXPECT_EQ(head.substr(head.size() - 4), "\r\n\r\n");
}

// RFC 9110 8.6: a 304's Content-Length could only be that of the 200 the client holds.
TEST(WireHead, NotModifiedHasNeitherLengthNorType) {
  Response r;
  r.status = 304;
  r.headers = {{"ETag", "\"1-a-USD\""}};
  const auto head = text(r, 11, true, 0);
  EXPECT_EQ(head.rfind("HTTP/1.1 304 Not Modified\r\n", 0), 0u) << head;
  EXPECT_EQ(head.find("Content-Length"), std::string::npos) << head;
  EXPECT_EQ(head.find("Content-Type"), std::string::npos) << head;
  EXPECT_NE(head.find("ETag: \"1-a-USD\"\r\n"), std::string::npos) << head;
  EXPECT_EQ(head.substr(head.size() - 4), "\r\n\r\n");
}

TEST(WireHead, AnUnsizedBodyIsChunkedWithoutALength) {
  Response r;
  r.content_type = "audio/mpeg";
  const auto head = text(r, 11, true, std::nullopt);
  EXPECT_NE(head.find("Transfer-Encoding: chunked\r\n"), std::string::npos);
  EXPECT_EQ(head.find("Content-Length"), std::string::npos);
  EXPECT_NE(head.find("Content-Type: audio/mpeg\r\n"), std::string::npos);
}

// HTTP/1.0 has no chunked coding: an unsized body is ended by the close.
TEST(WireHead, AnUnsizedBodyOverHttp10HasNeitherLengthNorChunks) {
  Response r;
  const auto head = text(r, 10, false, std::nullopt);
  EXPECT_EQ(head.rfind("HTTP/1.0 200 OK\r\n", 0), 0u) << head;
  EXPECT_EQ(head.find("Transfer-Encoding"), std::string::npos) << head;
  EXPECT_EQ(head.find("Content-Length"), std::string::npos) << head;
  EXPECT_NE(head.find("Connection: close\r\n"), std::string::npos) << head;
}

TEST(WireHead, SaysConnectionOnlyWhereTheVersionsDefaultDiffers) {
  Response r;
  EXPECT_NE(text(r, 11, false, 0).find("Connection: close\r\n"), std::string::npos);
  EXPECT_NE(text(r, 10, true, 0).find("Connection: keep-alive\r\n"), std::string::npos);
  EXPECT_EQ(text(r, 11, true, 0).find("Connection"), std::string::npos);
}

// Beast 1.81 writes a field's value as given, line breaks and all: the head leaves out such a
// line, so a value can never split the response or add a header of its own.
TEST(WireHead, LeavesOutLinesThatCouldSplitTheResponse) {
  Response r;
  r.headers = {{"X-Before", "1"},
               {"X-Split", "a\r\nSet-Cookie: stolen=1"},
               {"X-Lf", "a\nX-Injected: 1"},
               {"X-Cr", "a\rb"},
               {"X-Nul", std::string("a\0b", 3)},
               {"X-Bad: name", "v"},
               {"Bad Name", "v"},
               {"", "v"},
               {"X-After", "2"}};
  const auto head = text(r, 11, true, 0);
  EXPECT_EQ(head.find("Set-Cookie"), std::string::npos) << head;
  EXPECT_EQ(head.find("X-Injected"), std::string::npos) << head;
  EXPECT_EQ(head.find("X-Split"), std::string::npos) << head;
  EXPECT_EQ(head.find("X-Cr"), std::string::npos) << head;
  EXPECT_EQ(head.find("X-Nul"), std::string::npos) << head;
  EXPECT_EQ(head.find("name"), std::string::npos) << head;
  EXPECT_EQ(head.find("Bad"), std::string::npos) << head;
  EXPECT_NE(head.find("X-Before: 1\r\nX-After: 2\r\n"), std::string::npos) << head;
  // No bare CR or LF anywhere: every line break is a CRLF, and the head ends once.
  for (std::size_t i = 0; i < head.size(); ++i) {
    if (head[i] == '\r') {
      EXPECT_EQ(head[i + 1], '\n') << i;
    }
    if (head[i] == '\n') {
      EXPECT_EQ(head[i - 1], '\r') << i;
    }
  }
  EXPECT_EQ(head.find("\r\n\r\n"), head.size() - 4);
}

TEST(WireHead, KeepsTabsAndOrdinaryPunctuationInValues) {
  EXPECT_TRUE(header_line_safe("Content-Disposition", "attachment; filename=\"a b.mp3\""));
  EXPECT_TRUE(header_line_safe("X-Tab", "a\tb"));
  EXPECT_TRUE(header_line_safe("X-Empty", ""));
  EXPECT_FALSE(header_line_safe("X-Split", "a\r\nb"));
  EXPECT_FALSE(header_line_safe("X:Colon", "v"));
}

}  // namespace
}  // namespace mediagen::http::wire
