#pragma once
// The socket under a Pusher socket's WebSocket stream. Two writers share it: Beast (the handshake
// answer, pongs and close frames) and the session, which writes every data frame it has queued
// in one system call (a fan-out of many events to a slow reader, one write instead of one each).
// Each write is whole before the next one starts, in the order they were asked for, so the two
// never interleave bytes on the wire.
#include <array>
#include <cstddef>
#include <cstdint>
#include <deque>
#include <utility>
#include <vector>

#include <boost/asio/any_completion_handler.hpp>
#include <boost/asio/async_result.hpp>
#include <boost/asio/buffer.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/beast/core/error.hpp>
#include <boost/beast/core/role.hpp>
#include <boost/beast/websocket/teardown.hpp>

namespace mediagen::realtime {

class WriteGate {
 public:
  using executor_type = boost::asio::ip::tcp::socket::executor_type;
  using next_layer_type = boost::asio::ip::tcp::socket;
  using Buffers = std::vector<boost::asio::const_buffer>;
  using Handler = boost::asio::any_completion_handler<void(boost::beast::error_code, std::size_t)>;

  explicit WriteGate(boost::asio::ip::tcp::socket socket) : socket_(std::move(socket)) {}

  executor_type get_executor() { return socket_.get_executor(); }
  next_layer_type& next_layer() { return socket_; }
  const next_layer_type& next_layer() const { return socket_; }

  template <class MutableBufferSequence, class ReadHandler>
  auto async_read_some(const MutableBufferSequence& buffers, ReadHandler&& handler) {
    return socket_.async_read_some(buffers, std::forward<ReadHandler>(handler));
  }

  // Beast's writes: all of `buffers` (a legal "some"), after the writes asked for before.
  template <class ConstBufferSequence, class WriteHandler>
  auto async_write_some(const ConstBufferSequence& buffers, WriteHandler&& handler) {
    return boost::asio::async_initiate<WriteHandler, void(boost::beast::error_code, std::size_t)>(
        [this](auto h, const ConstBufferSequence& b) {
          write(Buffers(boost::asio::buffer_sequence_begin(b), boost::asio::buffer_sequence_end(b)), std::move(h));
        },
        handler, buffers);
  }

  // Writes all of `buffers` once every earlier write has finished. The bytes must outlive the
  // handler's call.
  void write(Buffers buffers, Handler handler);

 private:
  void start(Buffers buffers, Handler handler);

  boost::asio::ip::tcp::socket socket_;
  bool busy_ = false;
  std::deque<std::pair<Buffers, Handler>> waiting_;  // Beast's one and the session's one, at most
};

// The header of an unmasked, unfragmented text frame (what a server sends) of `size` bytes.
struct TextFrameHeader {
  std::array<unsigned char, 10> bytes{};
  std::size_t size = 0;
};
TextFrameHeader text_frame_header(std::uint64_t size);

// What Beast calls to end the connection under its stream: the socket's own teardown.
void teardown(boost::beast::role_type role, WriteGate& gate, boost::beast::error_code& ec);

template <class TeardownHandler>
void async_teardown(boost::beast::role_type role, WriteGate& gate, TeardownHandler&& handler) {
  boost::beast::websocket::async_teardown(role, gate.next_layer(), std::forward<TeardownHandler>(handler));
}

}  // namespace mediagen::realtime
