#pragma once
// A protocol that takes a connection over from HTTP (the WebSocket endpoint). Included only by the
// server and the realtime sessions, so Beast stays out of the widely included headers.
#include <string>
#include <string_view>

#include <boost/asio/ip/tcp.hpp>
#include <boost/beast/http/message.hpp>
#include <boost/beast/http/string_body.hpp>

namespace mediagen::http {

class UpgradeHandler {
 public:
  virtual ~UpgradeHandler() = default;
  // Whether an upgrade request for this target is the handler's (checked on the I/O thread).
  virtual bool wants(std::string_view target) const = 0;
  // Takes the connection: the socket, bound to its session's executor, and the upgrade request.
  virtual void take(boost::asio::ip::tcp::socket socket,
                    boost::beast::http::request<boost::beast::http::string_body> request, std::string peer_ip) = 0;
};

}  // namespace mediagen::http
