#pragma once
// One blocking Redis connection with connect and command timeouts. Not thread-safe: each
// blocking-pool thread owns one. A failed connection is dropped and reopened on the next call,
// so a Redis restart costs the calls made while it was down, nothing more.
#include <chrono>
#include <cstdint>
#include <memory>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include "mediagen/core/counters.hpp"

struct redisContext;

namespace mediagen::cache {

struct RedisAddress {
  std::string host = "127.0.0.1";
  int port = 6379;
  int db = 0;
  std::string password;
  static RedisAddress parse(std::string_view url);  // redis://[:password@]host[:port][/db]
};

struct RedisOptions {
  std::string url;
  std::chrono::milliseconds connect_timeout{1000};
  std::chrono::milliseconds command_timeout{1000};
  std::string client_name;  // CLIENT SETNAME on connect, so operators can tell connections apart
};

class RedisError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

struct RedisReply {
  enum class Type { nil, integer, string, status, error, array };
  Type type = Type::nil;
  std::int64_t integer = 0;
  std::string str;
  std::vector<RedisReply> elements;

  bool is_nil() const { return type == Type::nil; }
};

class Redis {
 public:
  explicit Redis(RedisOptions options, InfraCounters* counters = nullptr);
  ~Redis();
  Redis(const Redis&) = delete;
  Redis& operator=(const Redis&) = delete;

  // Throws RedisError on connection failure, timeout or an error reply.
  RedisReply command(const std::vector<std::string>& argv);
  // EVALSHA with a fallback to EVAL when the script is not loaded yet.
  RedisReply eval(std::string_view script, const std::vector<std::string>& keys,
                  const std::vector<std::string>& args);

  // The raw context for a subscriber loop; connects when needed.
  redisContext* context();
  void drop();

 private:
  void connect();
  RedisReply exec(const std::vector<std::string>& argv);  // on a connected context
  RedisOptions options_;
  RedisAddress address_;
  InfraCounters* counters_;
  redisContext* ctx_ = nullptr;
};

RedisReply to_reply(const void* hiredis_reply);

}  // namespace mediagen::cache
