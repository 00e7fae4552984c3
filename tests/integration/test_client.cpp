#include "test_client.hpp"

#include <gtest/gtest.h>

#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/beast/core/flat_buffer.hpp>
#include <boost/beast/http/parser.hpp>
#include <boost/beast/http/read.hpp>
#include <boost/beast/http/write.hpp>

namespace mediagen::test {

namespace asio = boost::asio;
namespace beast = boost::beast;
namespace bhttp = boost::beast::http;

struct TestClient::Connection {
  asio::io_context ioc;
  asio::ip::tcp::socket socket{ioc};
  beast::flat_buffer buffer;
};

TestClient::TestClient(std::uint16_t port) : connection_(std::make_unique<Connection>()) {
  connection_->socket.connect(asio::ip::tcp::endpoint(asio::ip::make_address("127.0.0.1"), port));
}

TestClient::~TestClient() = default;

Response TestClient::send(Request req) {
  req.set(bhttp::field::host, "127.0.0.1");
  beast::error_code ec;
  bhttp::write(connection_->socket, req, ec);
  bhttp::response_parser<bhttp::string_body> parser;
  parser.body_limit(64 * 1024 * 1024);
  parser.skip(req.method() == bhttp::verb::head);  // a HEAD answer declares a length, sends no body
  bhttp::read(connection_->socket, connection_->buffer, parser, ec);
  if (ec) ADD_FAILURE() << "no answer to " << req.method_string() << " " << req.target() << ": " << ec.message();
  return parser.release();
}

}  // namespace mediagen::test
