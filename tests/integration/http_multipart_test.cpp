// Uploads through the real server: a multipart route streams its body through the parser, gives
// the handler the parts, and stops reading at the first limit; other bodies stay JSON.
#include <gtest/gtest.h>
#include <poll.h>
#include <sys/socket.h>

#include <boost/asio/connect.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/write.hpp>
#include <boost/beast/core/flat_buffer.hpp>
#include <boost/beast/http/read.hpp>
#include <boost/beast/http/string_body.hpp>
#include <nlohmann/json.hpp>
#include <string>
#include <thread>

#include "mediagen/http/router.hpp"
#include "support.hpp"
#include "test_client.hpp"
#include "test_server.hpp"

namespace mediagen::test {
namespace {

namespace asio = boost::asio;
namespace bhttp = boost::beast::http;
using json = nlohmann::json;
using tcp = asio::ip::tcp;

constexpr std::string_view kBoundary = "xYzBoundary42";

// Echoes what the handler was given: the parts of a form, or the JSON body.
http::Route upload_route(std::string pattern, bool multipart) {
  http::MultipartLimits limits;
  limits.max_total_bytes = 256 * 1024;
  limits.max_parts = 4;
  limits.max_part_header_bytes = 1024;
  limits.max_field_bytes = 1024;
  limits.max_file_bytes = 128 * 1024;
  return {
      .method = http::Method::post,
      .pattern = std::move(pattern),
      .access = http::Access::open,
      .body_limit = limits.max_total_bytes,
      .json_body = true,
      .multipart_body = multipart,
      .multipart = limits,
      .handler = [](http::RequestContext& ctx) -> asio::awaitable<Result<http::Reply>> {
        json out = json::object();
        if (ctx.form) {
          json parts = json::array();
          for (const auto& p : ctx.form->parts) {
            parts.push_back({{"name", p.name}, {"file", p.display_filename()}, {"size", p.size}, {"data", p.is_file() ? "" : p.data}});
          }
          out["parts"] = parts;
        } else if (ctx.json) {
          out["json"] = *ctx.json;
        }
        co_return http::Reply{.data_json = out.dump()};
      },
  };
}

std::string part(std::string_view name, std::string_view body, std::string_view filename = {}) {
  std::string out = "--" + std::string(kBoundary) + "\r\nContent-Disposition: form-data; name=\"" + std::string(name) + "\"";
  if (!filename.empty()) out += "; filename=\"" + std::string(filename) + "\"\r\nContent-Type: audio/wav";
  out += "\r\n\r\n" + std::string(body) + "\r\n";
  return out;
}

std::string close_delimiter() { return "--" + std::string(kBoundary) + "--\r\n"; }

Request form_request(std::string target, std::string body) {
  Request req{bhttp::verb::post, target, 11};
  req.set(bhttp::field::host, "127.0.0.1");
  req.set(bhttp::field::content_type, "multipart/form-data; boundary=" + std::string(kBoundary));
  req.body() = std::move(body);
  req.prepare_payload();
  return req;
}

json body_of(const Response& r) { return json::parse(r.body()); }

// Writes raw bytes in pieces, as a slow client would, then reads the answer.
class RawClient {
 public:
  explicit RawClient(std::uint16_t port) : socket_(ioc_) {
    socket_.connect(tcp::endpoint(asio::ip::make_address("127.0.0.1"), port));
  }
  void write(std::string_view bytes) {
    boost::system::error_code ec;
    asio::write(socket_, asio::buffer(bytes), ec);
  }
  Response read() {
    Response res;
    bhttp::read(socket_, buffer_, res);
    return res;
  }
  bool closed_by_server() {
    if (buffer_.size() > 0) return false;
    pollfd pfd{socket_.native_handle(), POLLIN, 0};
    if (::poll(&pfd, 1, 5000) <= 0) return false;
    char c;
    return ::recv(socket_.native_handle(), &c, 1, MSG_PEEK) <= 0;
  }

 private:
  asio::io_context ioc_;
  tcp::socket socket_;
  boost::beast::flat_buffer buffer_;  // kept: one read may take the start of the next answer
};

class HttpMultipartTest : public MigratedTest {
 protected:
  void SetUp() override {
    MigratedTest::SetUp();
    if (HasFatalFailure()) return;
    server = std::make_unique<TestServer>(TestServerOptions{db_url, redis_url, prefix}, clock, counters,
                                          [](http::Router& router, db::BlockingPool&, db::AsyncPg&) {
                                            router.add_api(upload_route("/upload", true));
                                            router.add_api(upload_route("/json-only", false));
                                          });
  }
  void TearDown() override {
    server.reset();
    MigratedTest::TearDown();
  }

  Response send(Request req) {
    TestClient client(server->port());
    return client.send(std::move(req));
  }

  SystemClock clock;
  std::unique_ptr<TestServer> server;
};

TEST_F(HttpMultipartTest, TheHandlerGetsFieldsAndFilesInOrder) {
  const std::string audio(70'000, '\x01');
  auto r = send(form_request("/api/upload", part("name", "Ada") + part("files[]", audio, "a.wav") +
                                                part("files[]", "xyz", "b.wav") + close_delimiter()));
  ASSERT_EQ(r.result_int(), 200) << r.body();
  const json parts = body_of(r)["data"]["parts"];
  ASSERT_EQ(parts.size(), 3u);
  EXPECT_EQ(parts[0]["name"], "name");
  EXPECT_EQ(parts[0]["data"], "Ada");
  EXPECT_EQ(parts[1]["file"], "a.wav");
  EXPECT_EQ(parts[1]["size"], audio.size());
  EXPECT_EQ(parts[2]["size"], 3u);
}

TEST_F(HttpMultipartTest, ABodySentInSmallPiecesArrivesWhole) {
  RawClient c(server->port());
  const std::string body = part("note", "one two three") + part("files[]", std::string(20'000, 'a'), "x.wav") + close_delimiter();
  c.write("POST /api/upload HTTP/1.1\r\nHost: x\r\nContent-Type: multipart/form-data; boundary=" + std::string(kBoundary) +
          "\r\nContent-Length: " + std::to_string(body.size()) + "\r\n\r\n");
  for (std::size_t at = 0; at < body.size(); at += 997) {
    c.write(std::string_view(body).substr(at, 997));
    if (at % (997 * 8) == 0) std::this_thread::yield();
  }
  auto r = c.read();
  ASSERT_EQ(r.result_int(), 200) << r.body();
  EXPECT_EQ(body_of(r)["data"]["parts"][1]["size"], 20'000u);
}

TEST_F(HttpMultipartTest, AChunkedBodyIsStreamedToo) {
  RawClient c(server->port());
  const std::string body = part("note", "chunked") + close_delimiter();
  std::string chunked;
  for (std::size_t at = 0; at < body.size(); at += 16) {
    const auto piece = std::string_view(body).substr(at, 16);
    char size[16];
    std::snprintf(size, sizeof size, "%zx\r\n", piece.size());
    chunked += size + std::string(piece) + "\r\n";
  }
  chunked += "0\r\n\r\n";
  c.write("POST /api/upload HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\nContent-Type: multipart/form-data; boundary=" +
          std::string(kBoundary) + "\r\n\r\n" + chunked);
  auto r = c.read();
  ASSERT_EQ(r.result_int(), 200) << r.body();
  EXPECT_EQ(body_of(r)["data"]["parts"][0]["data"], "chunked");
}

TEST_F(HttpMultipartTest, ADeclaredSizeOverTheCapIsRefusedBeforeReading) {
  RawClient c(server->port());
  c.write("POST /api/upload HTTP/1.1\r\nHost: x\r\nContent-Type: multipart/form-data; boundary=" + std::string(kBoundary) +
          "\r\nContent-Length: 1073741824\r\n\r\n");
  auto r = c.read();
  EXPECT_EQ(r.result_int(), 413);
  EXPECT_TRUE(c.closed_by_server());
}

TEST_F(HttpMultipartTest, TooManyPartsIs413AndTheRestIsNotRead) {
  std::string body;
  for (int i = 0; i < 100; ++i) body += part("f" + std::to_string(i), "v");
  body += close_delimiter();
  RawClient c(server->port());
  // The declared length promises more than is sent: an answer proves the server stopped early.
  c.write("POST /api/upload HTTP/1.1\r\nHost: x\r\nContent-Type: multipart/form-data; boundary=" + std::string(kBoundary) +
          "\r\nContent-Length: " + std::to_string(body.size() + 100'000) + "\r\n\r\n" + body);
  auto r = c.read();
  EXPECT_EQ(r.result_int(), 413) << r.body();
  EXPECT_EQ(body_of(r)["success"], false);
  EXPECT_TRUE(c.closed_by_server());
}

TEST_F(HttpMultipartTest, AClientStillSendingARefusedUploadReadsItsAnswer) {
  std::string body;
  for (int i = 0; i < 100; ++i) body += part("f" + std::to_string(i), "v");
  body += std::string(4 << 20, 'x');  // the client goes on sending after the refusal
  RawClient c(server->port());
  c.write("POST /api/upload HTTP/1.1\r\nHost: x\r\nContent-Type: multipart/form-data; boundary=" + std::string(kBoundary) +
          "\r\nContent-Length: " + std::to_string(body.size()) + "\r\n\r\n" + body);
  auto r = c.read();
  EXPECT_EQ(r.result_int(), 413) << r.body();
  EXPECT_TRUE(c.closed_by_server());
}

TEST_F(HttpMultipartTest, AFileOverItsCapIs413) {
  auto r = send(form_request("/api/upload", part("files[]", std::string(129 * 1024, 'a'), "big.wav") + close_delimiter()));
  EXPECT_EQ(r.result_int(), 413) << r.body();
}

TEST_F(HttpMultipartTest, PartHeadersPastTheCapAre413) {
  const std::string header_bomb = "--" + std::string(kBoundary) + "\r\nContent-Disposition: form-data; name=\"a\"\r\nX-Pad: " +
                                  std::string(2000, 'p') + "\r\n\r\nv\r\n" + close_delimiter();
  auto r = send(form_request("/api/upload", header_bomb));
  EXPECT_EQ(r.result_int(), 413) << r.body();
}

TEST_F(HttpMultipartTest, MalformedBodiesAre422WithTheBodyField) {
  for (const std::string& body : {std::string(), part("a", "b"), std::string("no delimiter at all"),
                                  "--" + std::string(kBoundary) + "\r\nContent-Disposition: form-data\r\n\r\nv\r\n" + close_delimiter()}) {
    auto r = send(form_request("/api/upload", body));
    EXPECT_EQ(r.result_int(), 422) << body;
    EXPECT_TRUE(body_of(r)["errors"].contains("body")) << r.body();
  }
}

TEST_F(HttpMultipartTest, AFormWithoutABoundaryIs422) {
  Request req = form_request("/api/upload", part("a", "b") + close_delimiter());
  req.set(bhttp::field::content_type, "multipart/form-data");
  auto r = send(std::move(req));
  EXPECT_EQ(r.result_int(), 422) << r.body();
}

TEST_F(HttpMultipartTest, NonUtf8FileNamesAreShownSafely) {
  auto r = send(form_request("/api/upload", part("files[]", "abc", "\xff\xfe\x01name.wav") + close_delimiter()));
  ASSERT_EQ(r.result_int(), 200) << r.body();
  EXPECT_EQ(body_of(r)["data"]["parts"][0]["file"], "\xEF\xBF\xBD\xEF\xBF\xBD\xEF\xBF\xBDname.wav");
}

TEST_F(HttpMultipartTest, JsonStillWorksOnAnUploadRoute) {
  Request req{bhttp::verb::post, "/api/upload", 11};
  req.set(bhttp::field::host, "127.0.0.1");
  req.set(bhttp::field::content_type, "application/json");
  req.body() = R"({"a":1})";
  req.prepare_payload();
  auto r = send(std::move(req));
  ASSERT_EQ(r.result_int(), 200) << r.body();
  EXPECT_EQ(body_of(r)["data"]["json"]["a"], 1);
}

TEST_F(HttpMultipartTest, ARouteWithoutUploadsRefusesAFormAs415) {
  auto r = send(form_request("/api/json-only", part("a", "b") + close_delimiter()));
  EXPECT_EQ(r.result_int(), 415) << r.body();
}

TEST_F(HttpMultipartTest, TheConnectionServesTheNextRequestAfterAnUpload) {
  RawClient c(server->port());
  const std::string body = part("a", "first") + close_delimiter();
  const std::string head = "POST /api/upload HTTP/1.1\r\nHost: x\r\nContent-Type: multipart/form-data; boundary=" +
                           std::string(kBoundary) + "\r\nContent-Length: " + std::to_string(body.size()) + "\r\n\r\n";
  c.write(head + body + head + body);
  EXPECT_EQ(c.read().result_int(), 200);
  auto second = c.read();
  ASSERT_EQ(second.result_int(), 200);
  EXPECT_EQ(body_of(second)["data"]["parts"][0]["data"], "first");
}

}  // namespace
}  // namespace mediagen::test
