#pragma once
// One Pusher protocol 7 socket. Everything but the atomics is touched on the socket's executor
// only; others reach it through post/dispatch. Outbound frames go through one queue with exactly
// one write in flight: every data frame queued when a write starts goes out in it (WriteGate).
#include <atomic>
#include <exception>
#include <cstdint>
#include <limits>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include <boost/asio/ip/tcp.hpp>
#include <boost/beast/core/flat_buffer.hpp>
#include <boost/beast/http/message.hpp>
#include <boost/beast/http/string_body.hpp>
#include <boost/beast/websocket/stream.hpp>

#include "address_slots.hpp"
#include "hub_core.hpp"
#include "mediagen/realtime/channel.hpp"
#include "mediagen/realtime/grant.hpp"
#include "write_gate.hpp"

namespace mediagen::realtime {

struct ClientMessage;

class PusherSession : public std::enable_shared_from_this<PusherSession> {
 public:
  using Request = boost::beast::http::request<boost::beast::http::string_body>;

  PusherSession(std::shared_ptr<HubCore> hub, boost::asio::ip::tcp::socket socket, std::uint64_t serial);
  ~PusherSession();

  // A refusal (an IP ban, an address over its socket cap) is told to the client after the
  // handshake, with 4100 so that it backs off. `slot` counts this socket against its address
  // until the socket finishes.
  void start(Request request, std::optional<std::string> refusal = std::nullopt,
             std::unique_ptr<AddressSlots::Slot> slot = nullptr);
  boost::asio::any_io_executor executor() { return ws_.get_executor(); }

  // On the executor:
  void deliver(const std::string& channel, const Frame& frame, std::int64_t seq);
  void add_grant(Grant grant);
  void revoke(const crypto::Sha256Digest& key);
  void close_with(int code, std::string message);
  // The sweeper's look at a socket: pings a silent one, closes one that did not answer or whose
  // key expired.
  void check(std::int64_t now_ms, std::int64_t now_wall_ms);

  // Read by the sweeper without the executor.
  std::atomic<std::int64_t> last_seen_ms{0};
  std::atomic<std::int64_t> ping_sent_ms{0};
  std::atomic<std::int64_t> expires_wall_ms{std::numeric_limits<std::int64_t>::max()};

 private:
  struct Subscription {
    std::string channel;
    // Which subscribe this is: a check started for an earlier subscription of the same channel
    // (unsubscribed meanwhile) must not complete this one.
    std::uint64_t id = 0;
    bool pending = true;  // signature checked, the snapshot being read
    std::vector<std::pair<Frame, std::int64_t>> held;  // events that arrived while pending
    // The highest seq sent: an event at or below it is already reflected in what the client has
    // (the snapshot, or a later event that overtook it between instances), so it is not sent.
    std::int64_t last_seq = 0;
    std::optional<crypto::Sha256Digest> key;
    std::optional<TimePoint> expires_at;
  };

  void on_accept(int refusal, std::string refusal_message);
  void do_read();
  void on_message();
  void handle(const ClientMessage& m);
  void subscribe(const ClientMessage& m);
  std::optional<Grant> take_grant(const std::string& channel);
  // On the blocking pool: the grant's key when the key cache did not know it, then the snapshot.
  void complete_off_thread(const std::string& name, std::uint64_t id, const Channel& channel,
                           std::optional<crypto::Sha256Digest> key, bool wants_snapshot);
  void complete_subscribe(const std::string& channel, std::uint64_t id, bool key_valid, std::optional<Event> snapshot);
  void unsubscribe(const std::string& channel);
  void send_in_order(Subscription& sub, Frame frame, std::int64_t seq);
  void attach(Subscription& sub, const Grant& grant);
  void refuse_subscription(const std::string& channel, int status, int code, std::string_view message);
  Subscription* find(const std::string& channel);
  void recompute_expiry();

  // Runs one step of the socket: a failure in it ends this socket alone (close 1011), never the
  // I/O thread or another socket.
  template <class Step>
  void contained(Step&& step) noexcept {
    try {
      step();
    } catch (...) {
      fail(std::current_exception());
    }
  }
  void fail(const std::exception_ptr& error) noexcept;

  void send(Frame frame);
  void send(std::string text) { send(std::make_shared<const std::string>(std::move(text))); }
  void do_write();
  void finish();

  std::shared_ptr<HubCore> hub_;
  boost::beast::websocket::stream<WriteGate> ws_;
  boost::beast::flat_buffer buffer_;
  std::unique_ptr<Request> request_;  // only during the handshake
  std::uint64_t serial_;
  std::unique_ptr<AddressSlots::Slot> address_slot_;
  std::vector<Frame> queue_;  // the first in_flight_ are being written while writing_
  std::size_t in_flight_ = 0;
  std::vector<TextFrameHeader> headers_;  // of the frames in flight
  std::vector<Subscription> subs_;
  std::uint64_t last_subscription_id_ = 0;
  std::vector<Grant> grants_;  // granted on this instance, waiting for their subscribe
  // A grant was dropped to keep grants_ bounded: an authorization without its grant may be that
  // one, so it no longer subscribes unchecked.
  bool grants_dropped_ = false;
  std::optional<std::pair<int, std::string>> close_after_;  // close once the queue drains
  bool writing_ = false;
  bool open_ = false;       // handshake done and registered
  bool finished_ = false;
  bool close_sent_ = false;
};

}  // namespace mediagen::realtime
