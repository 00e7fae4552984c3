// A stopping server abandons an upstream call under way instead of waiting out its timeout.
#include <gtest/gtest.h>

#include <future>
#include <string>

#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/tcp.hpp>

#include "mediagen/engines/upstream.hpp"

namespace mediagen::engines {
namespace {

namespace asio = boost::asio;
using namespace std::chrono_literals;

TEST(UpstreamStop, AnUnansweredCallEndsWhenTheServerStops) {
  // An upstream that takes the connection and never answers: only the total timeout (an hour
  // here, far past the test's own limit) or stop() can end the call.
  asio::io_context io;
  asio::ip::tcp::acceptor silent(io, {asio::ip::make_address("127.0.0.1"), 0});
  asio::ip::tcp::socket held(io);
  const auto port = silent.local_endpoint().port();

  UpstreamOptions options;
  options.total_timeout = 3'600'000ms;
  options.max_attempts = 1;
  Upstreams upstreams(options);
  UpstreamTarget target{.kind = UpstreamKind::openai,
                        .service = "provider_a",
                        .url = "http://127.0.0.1:" + std::to_string(port) + "/v1",
                        .model = "tts-1",
                        .voice = "alloy"};
  SpeechRequest request;
  request.text = "Hello there.";
  auto call = std::async(std::launch::async, [&] { return upstreams.speak(target, request); });
  silent.accept(held);  // the request is on its way: the call is under way
  upstreams.stop();

  auto result = call.get();
  ASSERT_FALSE(result);
  EXPECT_EQ(result.error().kind, FailureKind::technical);
  EXPECT_EQ(result.error().reason, "upstream_unavailable");

  // Nothing is sent once stopped.
  auto after = upstreams.speak(target, request);
  ASSERT_FALSE(after);
  EXPECT_EQ(after.error().reason, "upstream_unavailable");
  EXPECT_EQ(after.error().detail, "the server is stopping");
}

}  // namespace
}  // namespace mediagen::engines
