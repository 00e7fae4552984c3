#pragma once
// One kept-alive HTTP/1.1 connection to an in-process test server, synchronous.
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>

#include <boost/beast/http/message.hpp>
#include <boost/beast/http/string_body.hpp>

namespace mediagen::test {

using Request = boost::beast::http::request<boost::beast::http::string_body>;
using Response = boost::beast::http::response<boost::beast::http::string_body>;

// A header of an answer, or "" when it has none.
inline std::string header(const Response& r, std::string_view name) {
  auto it = r.find(name);
  return it == r.end() ? std::string() : std::string(it->value());
}

class TestClient {
 public:
  explicit TestClient(std::uint16_t port);
  ~TestClient();
  TestClient(const TestClient&) = delete;
  TestClient& operator=(const TestClient&) = delete;

  // Sends one request and reads its answer (bodies up to 64 MiB; a HEAD answer has none). An
  // error while writing is ignored: a server that refuses a large body answers and closes before
  // it is all sent, and the answer is still there to read. No answer fails the test.
  Response send(Request req);

 private:
  struct Connection;
  std::unique_ptr<Connection> connection_;
};

}  // namespace mediagen::test
