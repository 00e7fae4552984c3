// Channel names are parsed strictly: one spelling per channel, so the name a client subscribes
// to is byte for byte the name events are published on.
#include "mediagen/realtime/channel.hpp"

#include <charconv>
#include <cstdint>

#include "mediagen/core/uuid_id.hpp"

namespace mediagen::realtime {
namespace {

constexpr std::string_view kOrderPrefix = "private-order.task.";
constexpr std::string_view kPreviewPrefix = "private-chunks.preview.";
constexpr std::string_view kVoiceClonesPrefix = "private-voice-clones.";
constexpr std::string_view kResellerCodesPrefix = "private-reseller.codes.";

// int64 max has 19 digits.
constexpr std::size_t kMaxUserIdDigits = 19;
constexpr std::size_t kMaxSocketIdPart = 20;

bool is_digit(char c) { return c >= '0' && c <= '9'; }

bool is_channel_char(char c) {
  if ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || is_digit(c)) return true;
  switch (c) {
    case '_': case '-': case '=': case '@': case ',': case '.': case ';': return true;
    default: return false;
  }
}


// A positive decimal id as users.id stores it: no sign, no leading zero, fits in int64.
std::optional<UserId> parse_user_id(std::string_view text) {
  if (text.empty() || text.size() > kMaxUserIdDigits || text.front() == '0') return std::nullopt;
  for (char c : text) {
    if (!is_digit(c)) return std::nullopt;
  }
  std::int64_t value = 0;
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (ec != std::errc{} || end != text.data() + text.size() || value <= 0) return std::nullopt;
  return UserId{value};
}

bool digits_run(std::string_view text) {
  if (text.empty() || text.size() > kMaxSocketIdPart) return false;
  for (char c : text) {
    if (!is_digit(c)) return false;
  }
  return true;
}

std::string user_channel(std::string_view prefix, UserId user) {
  std::string name(prefix);
  name += std::to_string(user.value);
  return name;
}

}  // namespace

std::optional<Channel> parse_channel(std::string_view name) {
  if (name.empty() || name.size() > kMaxChannelName) return std::nullopt;
  for (char c : name) {
    if (!is_channel_char(c)) return std::nullopt;
  }
  if (name.starts_with(kOrderPrefix)) {
    // Lowercase only: ids are issued lowercase, and an uppercase spelling would name a channel
    // nothing is ever published on.
    const std::string_view text = name.substr(kOrderPrefix.size());
    auto id = OrderId::parse(text);
    if (!id || id->str() != text) return std::nullopt;
    return Channel{ChannelKind::order, std::move(*id), UserId{}};
  }
  struct UserPrefix {
    std::string_view prefix;
    ChannelKind kind;
  };
  static constexpr UserPrefix kUserPrefixes[] = {
      {kPreviewPrefix, ChannelKind::preview},
      {kVoiceClonesPrefix, ChannelKind::voice_clones},
      {kResellerCodesPrefix, ChannelKind::reseller_codes},
  };
  for (const auto& [prefix, kind] : kUserPrefixes) {
    if (!name.starts_with(prefix)) continue;
    const auto user = parse_user_id(name.substr(prefix.size()));
    if (!user) return std::nullopt;
    return Channel{kind, std::nullopt, *user};
  }
  return std::nullopt;
}

std::string order_channel(std::string_view order_id) {
  std::string name(kOrderPrefix);
  name += order_id;
  return name;
}

std::string preview_channel(UserId user) { return user_channel(kPreviewPrefix, user); }
std::string voice_clones_channel(UserId user) { return user_channel(kVoiceClonesPrefix, user); }
std::string reseller_codes_channel(UserId user) { return user_channel(kResellerCodesPrefix, user); }

auth::Scope required_scope(ChannelKind kind) {
  switch (kind) {
    case ChannelKind::order: return auth::Scope::orders_read;
    case ChannelKind::preview: return auth::Scope::orders_read;
    case ChannelKind::voice_clones: return auth::Scope::voices_read;
    case ChannelKind::reseller_codes: return auth::Scope::reseller_read;
  }
  // Every kind is listed above; an unlisted one gets the scope no wildcard passes.
  return auth::Scope::reseller_read;
}

bool valid_socket_id(std::string_view socket_id) {
  const auto dot = socket_id.find('.');
  if (dot == std::string_view::npos) return false;
  return digits_run(socket_id.substr(0, dot)) && digits_run(socket_id.substr(dot + 1));
}

}  // namespace mediagen::realtime
