#include "mediagen/cache/redis.hpp"

#include <charconv>
#include <hiredis/hiredis.h>
#include <openssl/sha.h>

#include "mediagen/core/crypto.hpp"
#include "mediagen/core/transaction_mark.hpp"
#include "mediagen/core/redact.hpp"

namespace mediagen::cache {

RedisAddress RedisAddress::parse(std::string_view url) {
  RedisAddress a;
  constexpr std::string_view scheme = "redis://";
  if (url.substr(0, scheme.size()) != scheme) throw RedisError("redis url must start with redis://");
  url.remove_prefix(scheme.size());
  if (auto at = url.rfind('@'); at != std::string_view::npos) {
    std::string_view auth = url.substr(0, at);
    if (auto colon = auth.find(':'); colon != std::string_view::npos) auth = auth.substr(colon + 1);
    a.password = std::string(auth);
    url.remove_prefix(at + 1);
  }
  std::string_view hostport = url;
  if (auto slash = url.find('/'); slash != std::string_view::npos) {
    hostport = url.substr(0, slash);
    std::string_view db = url.substr(slash + 1);
    if (!db.empty()) std::from_chars(db.data(), db.data() + db.size(), a.db);
  }
  if (auto colon = hostport.rfind(':'); colon != std::string_view::npos) {
    std::string_view port = hostport.substr(colon + 1);
    std::from_chars(port.data(), port.data() + port.size(), a.port);
    hostport = hostport.substr(0, colon);
  }
  if (!hostport.empty()) a.host = std::string(hostport);
  return a;
}

namespace {
timeval to_timeval(std::chrono::milliseconds ms) {
  return timeval{static_cast<time_t>(ms.count() / 1000), static_cast<suseconds_t>((ms.count() % 1000) * 1000)};
}
}  // namespace

RedisReply to_reply(const void* raw) {
  const auto* r = static_cast<const redisReply*>(raw);
  RedisReply out;
  switch (r->type) {
    case REDIS_REPLY_INTEGER:
      out.type = RedisReply::Type::integer;
      out.integer = r->integer;
      break;
    case REDIS_REPLY_STRING:
      out.type = RedisReply::Type::string;
      out.str.assign(r->str, r->len);
      break;
    case REDIS_REPLY_STATUS:
      out.type = RedisReply::Type::status;
      out.str.assign(r->str, r->len);
      break;
    case REDIS_REPLY_ERROR:
      out.type = RedisReply::Type::error;
      out.str.assign(r->str, r->len);
      break;
    case REDIS_REPLY_ARRAY:
      out.type = RedisReply::Type::array;
      out.elements.reserve(r->elements);
      for (std::size_t i = 0; i < r->elements; ++i) out.elements.push_back(to_reply(r->element[i]));
      break;
    default:
      out.type = RedisReply::Type::nil;
  }
  return out;
}

Redis::Redis(RedisOptions options, InfraCounters* counters)
    : options_(std::move(options)), address_(RedisAddress::parse(options_.url)), counters_(counters) {}

Redis::~Redis() { drop(); }

void Redis::drop() {
  if (ctx_) redisFree(ctx_);
  ctx_ = nullptr;
}

void Redis::connect() {
  drop();
  ctx_ = redisConnectWithTimeout(address_.host.c_str(), address_.port, to_timeval(options_.connect_timeout));
  if (!ctx_ || ctx_->err) {
    std::string why = ctx_ ? ctx_->errstr : "out of memory";
    drop();
    throw RedisError("redis connect failed: " + redact_secrets(why, options_.url));
  }
  redisSetTimeout(ctx_, to_timeval(options_.command_timeout));
  try {
    if (!address_.password.empty()) exec({"AUTH", address_.password});
    if (address_.db != 0) exec({"SELECT", std::to_string(address_.db)});
    if (!options_.client_name.empty()) exec({"CLIENT", "SETNAME", options_.client_name});
  } catch (const RedisError&) {
    drop();
    throw;
  }
}

RedisReply Redis::exec(const std::vector<std::string>& argv) {
  std::vector<const char*> ptrs;
  std::vector<std::size_t> lens;
  ptrs.reserve(argv.size());
  lens.reserve(argv.size());
  for (const auto& a : argv) {
    ptrs.push_back(a.data());
    lens.push_back(a.size());
  }
  auto* reply = static_cast<redisReply*>(redisCommandArgv(ctx_, static_cast<int>(argv.size()), ptrs.data(), lens.data()));
  if (!reply) {
    std::string why = ctx_->errstr;
    drop();  // the context is unusable after an I/O error or timeout
    throw RedisError("redis command failed: " + why);
  }
  RedisReply out = to_reply(reply);
  freeReplyObject(reply);
  if (out.type == RedisReply::Type::error) throw RedisError(out.str);
  return out;
}

redisContext* Redis::context() {
  if (!ctx_) connect();
  return ctx_;
}

RedisReply Redis::command(const std::vector<std::string>& argv) {
  if (core::TransactionMark::active()) {
    // A bug, refused like an unreachable Redis (every caller handles that) and counted, so that
    // no database lock is ever held while Redis is waited on.
    if (counters_) counters_->redis_in_transaction.fetch_add(1, std::memory_order_relaxed);
    throw RedisError("refused: a Redis command inside a database transaction");
  }
  if (!ctx_) connect();
  if (counters_) counters_->redis_commands.fetch_add(1, std::memory_order_relaxed);
  return exec(argv);
}

RedisReply Redis::eval(std::string_view script, const std::vector<std::string>& keys,
                       const std::vector<std::string>& args) {
  // EVALSHA sends 40 bytes instead of the script; the first call on a fresh server loads it.
  unsigned char sha[SHA_DIGEST_LENGTH];
  SHA1(reinterpret_cast<const unsigned char*>(script.data()), script.size(), sha);
  std::vector<std::string> argv{"EVALSHA", crypto::to_hex(std::span<const std::uint8_t>(sha, sizeof sha)),
                                std::to_string(keys.size())};
  argv.insert(argv.end(), keys.begin(), keys.end());
  argv.insert(argv.end(), args.begin(), args.end());
  try {
    return command(argv);
  } catch (const RedisError& e) {
    if (std::string_view(e.what()).substr(0, 8) != "NOSCRIPT") throw;
  }
  argv[0] = "EVAL";
  argv[1] = std::string(script);
  return command(argv);
}

}  // namespace mediagen::cache
