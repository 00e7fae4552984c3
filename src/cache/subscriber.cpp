#include "mediagen/cache/subscriber.hpp"

#include <hiredis/hiredis.h>
#include <poll.h>

#include "mediagen/core/contain.hpp"
#include "mediagen/core/log.hpp"

namespace mediagen::cache {

Subscriber::Subscriber(RedisOptions options, std::vector<std::string> channels, OnMessage on_message,
                       OnConnected on_connected, InfraCounters* counters)
    : options_(std::move(options)),
      channels_(std::move(channels)),
      on_message_(std::move(on_message)),
      on_connected_(std::move(on_connected)),
      counters_(counters) {}

Subscriber::~Subscriber() { stop(); }

void Subscriber::start() {
  thread_ = std::thread([this] { loop(); });
}

void Subscriber::stop() {
  stopping_ = true;
  if (thread_.joinable()) thread_.join();
}

void Subscriber::loop() {
  int backoff_ms = 100;
  while (!stopping_) {
    try {
      Redis redis(options_);
      std::vector<std::string> argv{"SUBSCRIBE"};
      argv.insert(argv.end(), channels_.begin(), channels_.end());
      redisContext* ctx = redis.context();
      std::vector<const char*> ptrs;
      std::vector<std::size_t> lens;
      for (auto& a : argv) {
        ptrs.push_back(a.data());
        lens.push_back(a.size());
      }
      redisAppendCommandArgv(ctx, static_cast<int>(argv.size()), ptrs.data(), lens.data());
      int done = 0;
      while (!done) {
        if (redisBufferWrite(ctx, &done) != REDIS_OK) throw RedisError(ctx->errstr);
      }
      connected_ = true;
      backoff_ms = 100;
      if (on_connected_) on_connected_();
      while (!stopping_) {
        void* raw = nullptr;
        if (redisGetReplyFromReader(ctx, &raw) != REDIS_OK) throw RedisError(ctx->errstr);
        if (!raw) {
          // Wait for data with a short timeout so stop() is noticed promptly.
          pollfd pfd{ctx->fd, POLLIN, 0};
          int rc = ::poll(&pfd, 1, 250);
          if (rc < 0) continue;
          if (rc == 0) continue;
          if (redisBufferRead(ctx) != REDIS_OK) throw RedisError(ctx->errstr);
          continue;
        }
        RedisReply reply = to_reply(raw);
        freeReplyObject(raw);
        if (reply.type == RedisReply::Type::array && reply.elements.size() == 3 &&
            reply.elements[0].str == "message") {
          try {
            on_message_(reply.elements[1].str, reply.elements[2].str);
          } catch (...) {
            report_contained(counters_, Boundary::fanout, std::current_exception(),
                             {{"channel", std::string_view(reply.elements[1].str)}});
          }
        }
      }
    } catch (...) {
      if (connected_.exchange(false) || backoff_ms == 100) {
        log::warn("redis subscriber disconnected", {{"error", std::string_view(describe(std::current_exception()))}});
      }
    }
    connected_ = false;
    for (int waited = 0; waited < backoff_ms && !stopping_; waited += 50) {
      std::this_thread::sleep_for(std::chrono::milliseconds(50));
    }
    backoff_ms = std::min(backoff_ms * 2, 2000);
  }
}

}  // namespace mediagen::cache
