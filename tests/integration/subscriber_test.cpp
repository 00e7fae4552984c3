#include <gtest/gtest.h>

#include <condition_variable>
#include <mutex>
#include <set>
#include <sstream>
#include <thread>
#include <vector>

#include "mediagen/cache/redis.hpp"
#include "mediagen/cache/subscriber.hpp"
#include "support.hpp"

namespace mediagen::test {
namespace {

using namespace std::chrono_literals;

// Ids of the subscribed (pubsub) clients of the Redis server named `name`.
std::set<std::int64_t> pubsub_clients(cache::Redis& redis, const std::string& name) {
  std::set<std::int64_t> ids;
  std::istringstream lines(redis.command({"CLIENT", "LIST", "TYPE", "pubsub"}).str);
  for (std::string line; std::getline(lines, line);) {
    if (line.rfind("id=", 0) == 0 && line.find(" name=" + name + " ") != std::string::npos) {
      ids.insert(std::stoll(line.substr(3, line.find(' ') - 3)));
    }
  }
  return ids;
}

class SubscriberTest : public ServicesTest {
 protected:
  void SetUp() override {
    ServicesTest::SetUp();
    if (HasFatalFailure()) return;
    redis.emplace(cache::RedisOptions{.url = redis_url});
    channel = prefix + "events";
    client_name = "sub-" + random_hex(6);
  }
  void TearDown() override {
    if (subscriber) subscriber->stop();
    subscriber.reset();
    redis.reset();
    ServicesTest::TearDown();
  }

  void start() {
    subscriber = std::make_unique<cache::Subscriber>(
        cache::RedisOptions{.url = redis_url, .client_name = client_name},
        std::vector<std::string>{channel, prefix + "other"},
        [this](std::string_view ch, std::string_view payload) {
          std::lock_guard lock(mutex);
          messages.emplace_back(std::string(ch) + "|" + std::string(payload));
          cv.notify_all();
        },
        [this] {
          std::lock_guard lock(mutex);
          ++connects;
          cv.notify_all();
        });
    subscriber->start();
  }

  bool wait_for(const std::function<bool()>& ready, std::chrono::seconds limit = 10s) {
    std::unique_lock lock(mutex);
    return cv.wait_for(lock, limit, ready);
  }

  // Publishes until the subscriber hears it: SUBSCRIBE may still be in flight after on_connected.
  bool publish_until_heard(const std::string& payload) {
    for (int i = 0; i < 50; ++i) {
      redis->command({"PUBLISH", channel, payload});
      if (wait_for([&] {
            for (const auto& m : messages) {
              if (m == channel + "|" + payload) return true;
            }
            return false;
          },
                   1s)) {
        return true;
      }
    }
    return false;
  }

  std::optional<cache::Redis> redis;
  std::string channel;
  std::string client_name;
  std::unique_ptr<cache::Subscriber> subscriber;
  std::mutex mutex;
  std::condition_variable cv;
  std::vector<std::string> messages;
  int connects = 0;
};

TEST_F(SubscriberTest, DeliversMessagesOfItsChannels) {
  start();
  ASSERT_TRUE(wait_for([&] { return connects == 1; })) << "never connected";
  EXPECT_TRUE(subscriber->connected());
  ASSERT_TRUE(publish_until_heard("hello"));
  redis->command({"PUBLISH", prefix + "other", "second channel"});
  redis->command({"PUBLISH", prefix + "unrelated", "not for us"});
  EXPECT_TRUE(wait_for([&] { return !messages.empty() && messages.back() == prefix + "other|second channel"; }));
  std::this_thread::sleep_for(200ms);
  std::lock_guard lock(mutex);
  for (const auto& m : messages) EXPECT_EQ(m.find("not for us"), std::string::npos);
}

TEST_F(SubscriberTest, ReconnectsAndResubscribesAfterItsConnectionIsKilled) {
  start();
  ASSERT_TRUE(wait_for([&] { return connects == 1; }));
  ASSERT_TRUE(publish_until_heard("before"));
  // Found by its client name: other tests may subscribe at the same time.
  const auto ours = pubsub_clients(*redis, client_name);
  ASSERT_EQ(ours.size(), 1u);
  redis->command({"CLIENT", "KILL", "TYPE", "pubsub", "ID", std::to_string(*ours.begin())});
  ASSERT_TRUE(wait_for([&] { return connects == 2; })) << "on_connected was not called again";
  EXPECT_TRUE(publish_until_heard("after")) << "messages stopped after the reconnect";
}

TEST_F(SubscriberTest, StopsPromptly) {
  start();
  ASSERT_TRUE(wait_for([&] { return connects == 1; }));
  const auto started = std::chrono::steady_clock::now();
  subscriber->stop();
  EXPECT_LT(std::chrono::steady_clock::now() - started, 2s);
  EXPECT_FALSE(subscriber->connected());
}

TEST_F(SubscriberTest, KeepsTryingWhileRedisIsUnreachable) {
  cache::Subscriber nowhere({.url = "redis://127.0.0.1:1/0", .connect_timeout = 100ms}, {channel},
                            [](std::string_view, std::string_view) {}, [] {});
  nowhere.start();
  std::this_thread::sleep_for(300ms);
  EXPECT_FALSE(nowhere.connected());
  const auto started = std::chrono::steady_clock::now();
  nowhere.stop();
  EXPECT_LT(std::chrono::steady_clock::now() - started, 2s);
}

}  // namespace
}  // namespace mediagen::test
