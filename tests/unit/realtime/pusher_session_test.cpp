// One Pusher socket driven through its real session and hub core, over a socket pair, with a
// blocking pool that never connects: the order in which a subscription's off-thread check answers.
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

}  // namespace
}  // namespace mediagen::realtime
