#include "fanout_message.hpp"

#include <nlohmann/json.hpp>

#include "grant_record.hpp"
#include "mediagen/core/clean_json.hpp"
#include "mediagen/realtime/channel.hpp"
#include "pusher_frames.hpp"

namespace mediagen::realtime {

std::string format_fanout(std::string_view origin, std::string_view frame) {
  std::string out;
  out.reserve(origin.size() + 1 + frame.size());
  out.append(origin);
  out.push_back(' ');
  out.append(frame);
  return out;
}

std::optional<FanoutMessage> parse_fanout(std::string_view payload) {
  const auto space = payload.find(' ');
  if (space == std::string_view::npos || space == 0 || space > 64) return std::nullopt;
  FanoutMessage m;
  m.origin = payload.substr(0, space);
  m.frame = payload.substr(space + 1);
  const auto j = parse_untrusted_json(m.frame);
  if (!j.is_object()) return std::nullopt;
  const auto ev = j.find("event");
  const auto ch = j.find("channel");
  const auto data = j.find("data");
  if (ev == j.end() || !ev->is_string() || ch == j.end() || !ch->is_string() || data == j.end() ||
      !data->is_string()) {
    return std::nullopt;
  }
  const auto& event = ev->get_ref<const std::string&>();
  // Protocol events are the server's own; the fan-out carries application events only.
  if (event.empty() || event.rfind("pusher", 0) == 0 || event.rfind("client-", 0) == 0) return std::nullopt;
  m.channel = ch->get<std::string>();
  if (!parse_channel(m.channel)) return std::nullopt;
  m.seq = event_seq(data->get_ref<const std::string&>());
  return m;
}

std::string format_grant_message(std::string_view origin, const Grant& grant) {
  std::string out(origin);
  out += " grant ";
  out += grant.socket_id;
  out += ' ';
  out += grant.channel;
  out += ' ';
  out += format_grant_record(grant);
  return out;
}

std::optional<GrantMessage> parse_grant_message(std::string_view payload) {
  constexpr std::string_view kGrant = " grant ";
  const auto space = payload.find(' ');
  if (space == std::string_view::npos || space == 0 || space > 64) return std::nullopt;
  if (payload.substr(space, kGrant.size()) != kGrant) return std::nullopt;
  GrantMessage m;
  m.origin = payload.substr(0, space);
  std::string_view rest = payload.substr(space + kGrant.size());
  const auto a = rest.find(' ');
  if (a == std::string_view::npos) return std::nullopt;
  const auto socket_id = rest.substr(0, a);
  rest.remove_prefix(a + 1);
  const auto b = rest.find(' ');
  if (b == std::string_view::npos) return std::nullopt;
  const auto channel = rest.substr(0, b);
  rest.remove_prefix(b + 1);
  if (!valid_socket_id(socket_id) || !parse_channel(channel)) return std::nullopt;
  auto grant = parse_grant_record(socket_id, channel, rest);
  if (!grant) return std::nullopt;
  m.grant = std::move(*grant);
  return m;
}

}  // namespace mediagen::realtime
