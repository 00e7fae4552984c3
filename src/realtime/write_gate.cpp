#include "write_gate.hpp"

#include <boost/asio/associated_executor.hpp>
#include <boost/asio/bind_executor.hpp>
#include <boost/asio/write.hpp>

namespace mediagen::realtime {

namespace asio = boost::asio;

void WriteGate::write(Buffers buffers, Handler handler) {
  if (busy_) {
    waiting_.emplace_back(std::move(buffers), std::move(handler));
    return;
  }
  start(std::move(buffers), std::move(handler));
}

void WriteGate::start(Buffers buffers, Handler handler) {
  busy_ = true;
  // The completion runs where the writer's handler wants it (the socket's strand).
  auto ex = asio::get_associated_executor(handler, socket_.get_executor());
  asio::async_write(socket_, std::move(buffers),
                    asio::bind_executor(ex, [this, handler = std::move(handler)](boost::beast::error_code ec,
                                                                                  std::size_t n) mutable {
                      busy_ = false;
                      // The next writer starts before this one hears back, so that its handler
                      // finds the order already kept. After a failure the next write fails too,
                      // and each writer hears of it.
                      if (!waiting_.empty()) {
                        auto next = std::move(waiting_.front());
                        waiting_.pop_front();
                        start(std::move(next.first), std::move(next.second));
                      }
                      std::move(handler)(ec, n);
                    }));
}

TextFrameHeader text_frame_header(std::uint64_t size) {
  TextFrameHeader h;
  h.bytes[0] = 0x81;  // FIN, text
  if (size < 126) {
    h.bytes[1] = static_cast<unsigned char>(size);
    h.size = 2;
  } else if (size <= 0xFFFF) {
    h.bytes[1] = 126;
    h.bytes[2] = static_cast<unsigned char>(size >> 8);
    h.bytes[3] = static_cast<unsigned char>(size);
    h.size = 4;
  } else {
    h.bytes[1] = 127;
    for (int i = 0; i < 8; ++i) h.bytes[2 + i] = static_cast<unsigned char>(size >> (56 - 8 * i));
    h.size = 10;
  }
  return h;
}

void teardown(boost::beast::role_type role, WriteGate& gate, boost::beast::error_code& ec) {
  boost::beast::websocket::teardown(role, gate.next_layer(), ec);
}

}  // namespace mediagen::realtime
