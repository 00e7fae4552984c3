#include "mediagen/cache/ban_ladder.hpp"

#include <charconv>

#include "ban_numbers.hpp"
#include "mediagen/cache/redis.hpp"

namespace mediagen::cache {
namespace {

// KEYS: misses, step. ARGV: threshold, window, now, step memory, ladder...
// The ban is recorded and published by kRecordScript, signed: Lua cannot sign.
constexpr std::string_view kMissScript = R"lua(
local n = redis.call('INCR', KEYS[1])
if n == 1 then redis.call('EXPIRE', KEYS[1], ARGV[2]) end
if n < tonumber(ARGV[1]) then return {n, 0, 0} end
redis.call('DEL', KEYS[1])
local rungs = #ARGV - 4
local step = redis.call('INCR', KEYS[2])
if step > rungs then
  step = rungs
  redis.call('SET', KEYS[2], step)
end
local duration = tonumber(ARGV[4 + step])
local banned_until = tonumber(ARGV[3]) + duration
redis.call('EXPIRE', KEYS[2], duration + tonumber(ARGV[4]))
return {n, step, banned_until}
)lua";

// KEYS: bans hash. ARGV: ip, signed event, channel. One round trip for both.
constexpr std::string_view kRecordScript = R"lua(
redis.call('HSET', KEYS[1], ARGV[1], ARGV[2])
redis.call('PUBLISH', ARGV[3], ARGV[2])
return 1
)lua";

constexpr std::string_view kLoadScript = R"lua(
local all = redis.call('HGETALL', KEYS[1])
local now = tonumber(ARGV[1])
local out = {}
for i = 1, #all, 2 do
  -- A value is a signed event: "<signature> <ip> <until> <step>".
  local until_s = tonumber(string.match(all[i + 1], '^%x+ %S+ (%d+) %d+$'))
  if until_s == nil or until_s <= now then
    redis.call('HDEL', KEYS[1], all[i])
  else
    table.insert(out, all[i])
    table.insert(out, all[i + 1])
  end
end
return out
)lua";

}  // namespace

std::optional<Ban> BanList::check(std::string_view ip, TimePoint now) const {
  std::lock_guard lock(mutex_);
  if (bans_.empty()) return std::nullopt;
  auto it = bans_.find(std::string(ip));
  if (it == bans_.end() || it->second.until <= now) return std::nullopt;
  return it->second;
}

void BanList::put(std::string ip, Ban ban) {
  std::lock_guard lock(mutex_);
  auto& slot = bans_[std::move(ip)];
  if (ban.until > slot.until) slot = ban;
}

void BanList::prune(TimePoint now) {
  std::lock_guard lock(mutex_);
  std::erase_if(bans_, [&](const auto& kv) { return kv.second.until <= now; });
}

void BanList::replace_all(std::unordered_map<std::string, Ban> bans) {
  std::lock_guard lock(mutex_);
  bans_ = std::move(bans);
}

MissOutcome BanLadder::record_miss(Redis& redis, std::string_view ip, TimePoint now) const {
  const std::string ip_s(ip);
  std::vector<std::string> args{std::to_string(options_.threshold), std::to_string(options_.window_seconds),
                                std::to_string(detail::unix_seconds(now)), std::to_string(options_.step_memory_seconds)};
  for (auto s : options_.ladder_seconds) args.push_back(std::to_string(s));
  auto reply = redis.eval(kMissScript, {options_.prefix + "ban:misses:" + ip_s, options_.prefix + "ban:step:" + ip_s},
                          args);
  MissOutcome out;
  if (reply.elements.size() != 3) return out;
  out.misses = reply.elements[0].integer;
  if (reply.elements[1].integer <= 0) return out;
  // Read back through the event's own bounded reader: Redis is shared, and a reply out of range
  // is not turned into a time.
  auto event = parse_event(ip_s + " " + std::to_string(reply.elements[2].integer) + " " +
                           std::to_string(reply.elements[1].integer));
  if (!event) return out;
  out.ban = event->second;
  redis.eval(kRecordScript, {options_.prefix + "bans"}, {ip_s, signed_event(ip, *out.ban), channel()});
  return out;
}

std::int64_t BanLadder::misses(Redis& redis, std::string_view ip) const {
  auto reply = redis.command({"GET", options_.prefix + "ban:misses:" + std::string(ip)});
  std::int64_t n = 0;
  if (reply.type == RedisReply::Type::integer) return reply.integer;
  if (reply.type == RedisReply::Type::string && detail::parse_i64(reply.str, n)) return n;
  return 0;  // none counted (the window has run out) or not a count
}

std::unordered_map<std::string, Ban> BanLadder::load_active(Redis& redis, TimePoint now) const {
  auto reply = redis.eval(kLoadScript, {options_.prefix + "bans"}, {std::to_string(detail::unix_seconds(now))});
  std::unordered_map<std::string, Ban> out;
  for (std::size_t i = 0; i + 1 < reply.elements.size(); i += 2) {
    auto event = read_event(reply.elements[i + 1].str);
    // The field names the address too: a signed event filed under another is not believed.
    if (event && event->first == reply.elements[i].str) out.emplace(std::move(event->first), event->second);
  }
  return out;
}

}  // namespace mediagen::cache
