// What a connection puts on the wire for an answer (session_write.cpp), read by a plain socket on
// the other end of a loopback connection: heads, sized and chunked bodies, HEAD, HTTP/1.0, and a
// reader that stops taking a download.
#include <gtest/gtest.h>

#include <boost/asio/co_spawn.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/read.hpp>
#include <chrono>
#include <deque>
#include <exception>
#include <memory>
#include <string>

#include "http/session_io.hpp"

namespace mediagen::http::session_io {
namespace {

using tcp = asio::ip::tcp;

// Pieces handed out in order; for an unsized body the last one should be empty.
class ListBody final : public BodySource {
 public:
  ListBody(std::deque<std::string> pieces, bool sized, std::uint64_t size)
      : pieces_(std::move(pieces)), sized_(sized), size_(size) {}
  std::uint64_t size() const override { return size_; }
  bool sized() const override { return sized_; }
  std::int64_t max_seconds() const override { return 60; }
  asio::awaitable<std::optional<std::string>> next() override {
    if (pieces_.empty()) co_return std::nullopt;
    std::string piece = std::move(pieces_.front());
    pieces_.pop_front();
    co_return piece;
  }

 private:
  std::deque<std::string> pieces_;
  bool sized_;
  std::uint64_t size_;
};

// The same piece, as many times as it takes: a download too large for the sockets' buffers.
class EndlessBody final : public BodySource {
 public:
  std::uint64_t size() const override { return std::uint64_t{1} << 40; }
  asio::awaitable<std::optional<std::string>> next() override { co_return std::string(256 * 1024, 'x'); }
};

struct Wire {
  asio::io_context io;
  tcp::socket client{io};
  tcp::socket server_side{io};

  // A small receive buffer, set before connecting, keeps the window the server sees small.
  explicit Wire(int receive_buffer = 0) {
    tcp::acceptor acceptor(io, tcp::endpoint(asio::ip::make_address("127.0.0.1"), 0));
    client.open(tcp::v4());
    if (receive_buffer) client.set_option(asio::socket_base::receive_buffer_size(receive_buffer));
    client.connect(acceptor.local_endpoint());
    acceptor.accept(server_side);
    server_side.non_blocking(true);
  }

  // Writes `r` as the server does and returns whether the connection could carry on.
  bool write(Response& r, unsigned version, bool keep_alive, bool head, WriteLimits limits = {}) {
    beast::tcp_stream stream(std::move(server_side));
    auto state = std::make_shared<SessionState>(io.get_executor());
    state->stream = &stream;
    Connection conn(stream, state);
    bool result = false;
    asio::co_spawn(io, write_response(conn, r, version, keep_alive, head, limits),
                   [&](std::exception_ptr e, bool ok) {
                     if (e) std::rethrow_exception(e);
                     result = ok;
                     beast::error_code ignored;
                     stream.socket().shutdown(tcp::socket::shutdown_send, ignored);
                   });
    io.run();
    io.restart();
    return result;
  }

  std::string received() {
    std::string out;
    beast::error_code ec;
    asio::read(client, asio::dynamic_buffer(out), ec);
    return out;
  }
};

const std::string kJson = "Content-Type: application/json; charset=utf-8\r\n";

TEST(SessionWrite, AStringBodyFollowsItsHead) {
  Wire w;
  Response r;
  r.body = "{\"ok\":true}";
  r.headers = {{"ETag", "\"1\""}};
  EXPECT_TRUE(w.write(r, 11, true, false));
  EXPECT_EQ(w.received(), "HTTP/1.1 200 OK\r\n" + kJson + "Content-Length: 11\r\nETag: \"1\"\r\n\r\n{\"ok\":true}");
}

TEST(SessionWrite, HeadGetsTheLengthWithoutTheBody) {
  Wire w;
  Response r;
  r.body = "{\"ok\":true}";
  EXPECT_TRUE(w.write(r, 11, false, true));
  EXPECT_EQ(w.received(), "HTTP/1.1 200 OK\r\n" + kJson + "Content-Length: 11\r\nConnection: close\r\n\r\n");
}

TEST(SessionWrite, AHeaderValueWithALineBreakNeverReachesTheWire) {
  Wire w;
  Response r;
  r.status = 404;
  r.headers = {{"X-Name", "a\r\nSet-Cookie: stolen=1"}, {"X-Kept", "1"}};
  EXPECT_TRUE(w.write(r, 11, true, false));
  EXPECT_EQ(w.received(), "HTTP/1.1 404 Not Found\r\n" + kJson + "Content-Length: 0\r\nX-Kept: 1\r\n\r\n");
}

TEST(SessionWrite, ASizedSourceGoesOutWhole) {
  Wire w;
  Response r;
  r.content_type = "audio/mpeg";
  r.body_source = std::make_unique<ListBody>(std::deque<std::string>{"hello ", "world"}, true, 11);
  EXPECT_TRUE(w.write(r, 11, true, false));
  EXPECT_EQ(w.received(), "HTTP/1.1 200 OK\r\nContent-Type: audio/mpeg\r\nContent-Length: 11\r\n\r\nhello world");
}

TEST(SessionWrite, ASourceThatGivesMoreThanItsSizeEndsTheConnection) {
  Wire w;
  Response r;
  r.body_source = std::make_unique<ListBody>(std::deque<std::string>{"hello ", "world"}, true, 8);
  EXPECT_FALSE(w.write(r, 11, true, false));
}

TEST(SessionWrite, AnUnsizedSourceGoesOutChunkedWithItsLastChunk) {
  Wire w;
  Response r;
  r.content_type = "audio/mpeg";
  r.body_source = std::make_unique<ListBody>(std::deque<std::string>{"hello", "world!", ""}, false, 0);
  EXPECT_TRUE(w.write(r, 11, true, false));
  EXPECT_EQ(w.received(), "HTTP/1.1 200 OK\r\nContent-Type: audio/mpeg\r\nTransfer-Encoding: chunked\r\n\r\n"
                          "5\r\nhello\r\n6\r\nworld!\r\n0\r\n\r\n");
}

// The head has gone out: the client must see a broken transfer, not a complete one.
TEST(SessionWrite, AnUnsizedSourceThatFailsEndsWithoutItsLastChunk) {
  Wire w;
  Response r;
  r.body_source = std::make_unique<ListBody>(std::deque<std::string>{"hello"}, false, 0);
  EXPECT_FALSE(w.write(r, 11, true, false));
  const std::string got = w.received();
  EXPECT_NE(got.find("5\r\nhello\r\n"), std::string::npos) << got;
  EXPECT_EQ(got.find("0\r\n\r\n"), std::string::npos) << got;
}

TEST(SessionWrite, HeadOfAnUnsizedBodyHasNoChunks) {
  Wire w;
  Response r;
  r.body_source = std::make_unique<ListBody>(std::deque<std::string>{"hello", ""}, false, 0);
  EXPECT_TRUE(w.write(r, 11, true, true));
  EXPECT_EQ(w.received(), "HTTP/1.1 200 OK\r\n" + kJson + "Transfer-Encoding: chunked\r\n\r\n");
}

// HTTP/1.0 has no chunked coding: the bytes go bare and the close ends them.
TEST(SessionWrite, AnUnsizedSourceOverHttp10IsEndedByTheClose) {
  Wire w;
  Response r;
  r.body_source = std::make_unique<ListBody>(std::deque<std::string>{"hello", "world", ""}, false, 0);
  EXPECT_FALSE(w.write(r, 10, true, false));
  EXPECT_EQ(w.received(), "HTTP/1.0 200 OK\r\n" + kJson + "Connection: close\r\n\r\nhelloworld");
}

TEST(SessionWrite, AReaderThatStopsLosesTheConnectionAfterTheStallTime) {
  Wire w(16 * 1024);
  Response r;
  r.body_source = std::make_unique<EndlessBody>();
  const auto start = Clock::now();
  EXPECT_FALSE(w.write(r, 11, true, false, WriteLimits{milliseconds(300), milliseconds(60'000), 4096}));
  const auto took = Clock::now() - start;
  EXPECT_GE(took, milliseconds(300));
  EXPECT_LT(took, milliseconds(5000));
}

}  // namespace
}  // namespace mediagen::http::session_io
