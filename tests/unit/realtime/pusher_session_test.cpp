// One Pusher socket driven through its real session and hub core, over a socket pair, with a
// blocking pool that never connects: the order in which a subscription's off-thread check answers,
// and bursts of events written many frames at a time while Beast answers pings and closes.
#include <sys/socket.h>

#include <chrono>
#include <condition_variable>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include <boost/asio/dispatch.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/beast/core/buffers_to_string.hpp>
#include <boost/beast/http/read.hpp>
#include <boost/beast/websocket.hpp>
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "mediagen/core/counters.hpp"
#include "mediagen/db/blocking_pool.hpp"
#include "mediagen/realtime/channel_signer.hpp"
#include "realtime/hub_core.hpp"
#include "realtime/pusher_session.hpp"

namespace mediagen::realtime {
namespace {

namespace asio = boost::asio;
namespace beast = boost::beast;
namespace websocket = beast::websocket;
using tcp = asio::ip::tcp;

constexpr const char* kChannel = "private-voice-clones.7";
const crypto::Sha256Digest kValidKey{1};
const crypto::Sha256Digest kRevokedKey{2};

class FixedClock final : public Clock {
 public:
  TimePoint now() const override { return TimePoint(std::chrono::seconds(1'700'000'000)); }
};

// The pool's one thread, held by a job of the test until released: the session's jobs queue
// behind it in the order they were submitted.
struct Gate {
  std::mutex mutex;
  std::condition_variable cv;
  bool held = true;
  void release() {
    std::lock_guard lock(mutex);
    held = false;
    cv.notify_all();
  }
};

class PusherSessionTest : public ::testing::Test {
 protected:
  PusherSessionTest() {
    HubHooks hooks;
    // Neither key is in the key cache: each subscription asks PostgreSQL, on the pool.
    hooks.key_cached = [](const crypto::Sha256Digest&) -> std::optional<bool> { return std::nullopt; };
    hooks.key_valid = [](db::Resources&, const crypto::Sha256Digest& k) { return k == kValidKey; };
    hub_ = std::make_shared<HubCore>(ioc_, HubOptions{}, "app", signer_, pool_, std::move(hooks), clock_);
  }
  ~PusherSessionTest() override {
    gate_.release();
    beast::error_code ignored;
    beast::get_lowest_layer(client_).close(ignored);
    run_until([&] { return hub_->session_count() == 0 && pool_.queued() == 0; });
  }

  // Runs the I/O side until `done` holds; the pool answers from its own thread meanwhile.
  template <class Done>
  bool run_until(Done done) {
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(20);
    while (!done()) {
      if (std::chrono::steady_clock::now() > deadline) return false;
      ioc_.poll();
      ioc_.restart();
      std::this_thread::yield();
    }
    return true;
  }

  // As run_until, one handler at a time: stops as soon as `done` holds.
  template <class Done>
  bool step_until(Done done) {
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(20);
    while (!done()) {
      if (std::chrono::steady_clock::now() > deadline) return false;
      if (ioc_.poll_one() == 0) {
        ioc_.restart();
        std::this_thread::yield();
      }
    }
    return true;
  }

  void connect() {
    int fds[2];
    ASSERT_EQ(::socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, fds), 0);
    tcp::socket server(ioc_);
    server.assign(tcp::v4(), fds[0]);
    beast::get_lowest_layer(client_).assign(tcp::v4(), fds[1]);
    bool open = false;
    client_.async_handshake("127.0.0.1", "/app/app?protocol=7", [&](beast::error_code ec) { open = !ec; });
    beast::flat_buffer buffer;
    PusherSession::Request request;
    bool read = false;
    beast::http::async_read(server, buffer, request, [&](beast::error_code ec, std::size_t) { read = !ec; });
    ASSERT_TRUE(run_until([&] { return read; }));
    serial_ = HubCore::new_serial();
    auto session = std::make_shared<PusherSession>(hub_, std::move(server), serial_);
    session->start(std::move(request));
    ASSERT_TRUE(run_until([&] { return open; }));
    read_frames();
    ASSERT_TRUE(run_until([&] { return !frames_.empty(); }));
    ASSERT_EQ(frames_[0]["event"], "pusher:connection_established");
  }

  void read_frames() {
    client_.async_read(in_, [this](beast::error_code ec, std::size_t) {
      if (ec) return;
      frames_.push_back(nlohmann::json::parse(beast::buffers_to_string(in_.data())));
      in_.consume(in_.size());
      read_frames();
    });
  }

  void send(const nlohmann::json& message) {
    bool sent = false;
    const auto text = std::make_shared<std::string>(message.dump());
    client_.async_write(asio::buffer(*text), [&sent, text](beast::error_code, std::size_t) { sent = true; });
    ASSERT_TRUE(run_until([&] { return sent; }));
  }

  void grant(const crypto::Sha256Digest& key) {
    auto session = hub_->find_session(serial_);
    ASSERT_NE(session, nullptr);
    Grant g{.socket_id = hub_->socket_id(serial_), .channel = kChannel, .key_id = ApiKeyId{1}, .user = UserId{7},
            .key_hash = key};
    bool added = false;
    asio::dispatch(session->executor(), [&, session, g] {
      session->add_grant(g);
      added = true;
    });
    ASSERT_TRUE(run_until([&] { return added; }));
  }

  void subscribe() {
    const std::string auth = signer_.sign(hub_->socket_id(serial_), kChannel);
    send({{"event", "pusher:subscribe"}, {"data", {{"channel", kChannel}, {"auth", auth}}}});
  }

  std::vector<std::string> events_of(const std::string& channel) const {
    std::vector<std::string> out;
    for (const auto& f : frames_) {
      if (f.value("channel", "") == channel) out.push_back(f["event"]);
    }
    return out;
  }

  // Subscribes kChannel with a valid key's grant and waits for its success.
  void subscribed() {
    connect();
    grant(kValidKey);
    subscribe();
    ASSERT_TRUE(run_until([&] { return !events_of(kChannel).empty(); }));
    ASSERT_EQ(events_of(kChannel), std::vector<std::string>{"pusher_internal:subscription_succeeded"});
  }

  // An event on kChannel whose frame is exactly `size` bytes of JSON, numbered `n`.
  static Frame event_frame(std::size_t size, int n) {
    std::string text = R"({"event":"e)" + std::to_string(n) + R"(","channel":")" + kChannel + R"(","data":")";
    EXPECT_LE(text.size() + 2, size);
    text.append(size - text.size() - 2, 'x');
    text += "\"}";
    return std::make_shared<const std::string>(std::move(text));
  }

  // Frame sizes on both sides of each length encoding (7 bits, 16 bits, 64 bits).
  static std::vector<std::size_t> burst_sizes(std::size_t count) {
    const std::vector<std::size_t> edges{125, 126, 127, 65535, 65536, 70000, 200};
    std::vector<std::size_t> out;
    for (std::size_t i = 0; i < count; ++i) out.push_back(edges[i % edges.size()]);
    return out;
  }

  // Every event of the burst, whole and in order, after what came before it.
  void expect_burst(const std::vector<std::size_t>& sizes, std::size_t first) {
    ASSERT_GE(frames_.size(), first + sizes.size());
    for (std::size_t i = 0; i < sizes.size(); ++i) {
      const auto& f = frames_[first + i];
      ASSERT_EQ(f["event"], "e" + std::to_string(i)) << i;
      ASSERT_EQ(f.dump().size(), sizes[i]) << i;
    }
  }

  asio::io_context ioc_;
  InfraCounters counters_;
  db::BlockingPool pool_{{.threads = 1, .request_deadline = {}, .database_url = "postgresql://127.0.0.1:1/none",
                          .redis = {.url = "redis://127.0.0.1:1/0"}},
                         counters_};
  ChannelSigner signer_{"app", "channel secret"};
  FixedClock clock_;
  std::shared_ptr<HubCore> hub_;
  Gate gate_;
  websocket::stream<tcp::socket> client_{ioc_};
  beast::flat_buffer in_;
  std::vector<nlohmann::json> frames_;
  std::uint64_t serial_ = 0;
  int pongs_ = 0;
};

// Subscribe with a valid key's grant, unsubscribe and subscribe again with a revoked key's grant,
// all before the first check answers: the first answer belongs to a subscription that is gone, and
// the second subscription is refused on its own key's answer.
TEST_F(PusherSessionTest, AResubscriptionWaitsForItsOwnKeyCheck) {
  connect();
  pool_.submit([this](db::Resources&) {
    std::unique_lock lock(gate_.mutex);
    gate_.cv.wait(lock, [this] { return !gate_.held; });
  });
  // Each step waits until the session has taken it, so that none overtakes another.
  grant(kValidKey);
  subscribe();
  ASSERT_TRUE(run_until([&] { return pool_.queued() == 1 && hub_->subscription_count() == 1; }));
  send({{"event", "pusher:unsubscribe"}, {"data", {{"channel", kChannel}}}});
  ASSERT_TRUE(run_until([&] { return hub_->subscription_count() == 0; }));
  grant(kRevokedKey);
  subscribe();
  ASSERT_TRUE(run_until([&] { return pool_.queued() == 2; }));  // both checks wait behind the gate
  gate_.release();
  ASSERT_TRUE(run_until([&] { return !events_of(kChannel).empty(); }));
  // The pool answers in order: had the first answer completed the second subscription, its
  // subscription_succeeded would be here before the refusal.
  EXPECT_EQ(events_of(kChannel), std::vector<std::string>{"pusher:subscription_error"});
  EXPECT_EQ(hub_->subscription_count(), 0u);
  EXPECT_FALSE(hub_->tracks(kRevokedKey));
}

// A burst delivered at once leaves the session in several writes of many frames each (128 at most
// per write): the client's WebSocket reader takes every one whole, in the order sent.
TEST_F(PusherSessionTest, ABurstOfEventsArrivesWholeAndInOrder) {
  subscribed();
  const std::size_t before = frames_.size();
  const auto sizes = burst_sizes(300);
  for (std::size_t i = 0; i < sizes.size(); ++i) {
    hub_->deliver(kChannel, event_frame(sizes[i], static_cast<int>(i)), static_cast<std::int64_t>(i + 1));
  }
  ASSERT_TRUE(run_until([&] { return frames_.size() >= before + sizes.size(); }));
  expect_burst(sizes, before);
  EXPECT_EQ(frames_.size(), before + sizes.size());
}

// A ping that arrives while megabytes of frames are being written is answered by Beast through
// the same gate: its pong goes out between two whole writes, never inside a frame.
TEST_F(PusherSessionTest, APingDuringABurstIsAnsweredBetweenWholeWrites) {
  subscribed();
  client_.control_callback([this](websocket::frame_type kind, beast::string_view) {
    if (kind == websocket::frame_type::pong) ++pongs_;
  });
  const std::size_t before = frames_.size();
  const auto sizes = burst_sizes(400);  // about 8 MB: far more than a socket's buffer holds
  for (std::size_t i = 0; i < sizes.size(); ++i) {
    hub_->deliver(kChannel, event_frame(sizes[i], static_cast<int>(i)), static_cast<std::int64_t>(i + 1));
  }
  // The first write has started and is stuck on the full socket when the pings come.
  ASSERT_TRUE(step_until([&] { return frames_.size() > before; }));
  ASSERT_LT(frames_.size(), before + sizes.size());
  int pinged = 0;
  for (int i = 0; i < 3; ++i) {
    client_.async_ping({}, [&pinged](beast::error_code ec) { pinged += ec ? 0 : 1; });
    ASSERT_TRUE(step_until([&] { return pinged == i + 1; }));
  }
  ASSERT_TRUE(run_until([&] { return frames_.size() >= before + sizes.size() && pongs_ == 3; }));
  expect_burst(sizes, before);
  EXPECT_EQ(frames_.size(), before + sizes.size());
}

// The client closes while a burst is being written: Beast's close answer follows the write in
// progress, whole, and nothing is written after it; the socket then ends.
TEST_F(PusherSessionTest, AClientCloseDuringABurstEndsTheSocketCleanly) {
  subscribed();
  const auto sizes = burst_sizes(400);
  for (std::size_t i = 0; i < sizes.size(); ++i) {
    hub_->deliver(kChannel, event_frame(sizes[i], static_cast<int>(i)), static_cast<std::int64_t>(i + 1));
  }
  const std::size_t before = frames_.size();
  ASSERT_TRUE(step_until([&] { return frames_.size() > before; }));
  ASSERT_LT(frames_.size(), before + sizes.size());
  std::optional<beast::error_code> closed;
  client_.async_close(websocket::close_code::normal, [&closed](beast::error_code ec) { closed = ec; });
  ASSERT_TRUE(run_until([&] { return closed.has_value() && hub_->session_count() == 0; }));
  // Beast's client reads past data frames to the server's close frame: a frame cut by the close,
  // or data after it, would fail the close with a protocol error.
  EXPECT_FALSE(*closed) << closed->message();
}

// Each event that reaches a local subscriber is one observation of the fan-out histogram
// (mediagen_realtime_fanout_seconds), timed from the arrival the caller gives; an event for a
// channel nobody here holds is none.
TEST_F(PusherSessionTest, TheFanoutHistogramCountsEachDeliveredEventFromItsArrival) {
  subscribed();
  const std::size_t before = frames_.size();
  const auto arrived = std::chrono::steady_clock::now() - std::chrono::milliseconds(30);
  hub_->deliver(kChannel, event_frame(64, 1), 1, arrived);
  hub_->deliver("private-order.task.nobody-here", event_frame(64, 2), 1);
  ASSERT_TRUE(run_until([&] { return frames_.size() == before + 1; }));
  std::string text;
  hub_->fanout_time.render(text, "fanout_seconds", "help");
  // The one event waited at least the 30 ms it was given: it is above the 0.025 bucket.
  EXPECT_NE(text.find("fanout_seconds_bucket{le=\"0.025\"} 0\n"), std::string::npos) << text;
  EXPECT_NE(text.find("fanout_seconds_bucket{le=\"+Inf\"} 1\n"), std::string::npos) << text;
  EXPECT_NE(text.find("fanout_seconds_count 1\n"), std::string::npos) << text;
  EXPECT_EQ(hub_->fanout_time.count(), 1u);
}

}  // namespace
}  // namespace mediagen::realtime
