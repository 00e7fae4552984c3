#pragma once
// The private channels of spec section 6 and the scope each one needs.
//   private-order.task.{orderId}       orders.read    order.updated, order.item.updated
//   private-chunks.preview.{userId}    orders.read    ready
//   private-voice-clones.{userId}      voices.read    voice_clone.updated
//   private-reseller.codes.{userId}    reseller.read  gift code events
#include <optional>
#include <string>
#include <string_view>

#include "mediagen/access/scopes.hpp"
#include "mediagen/core/ids.hpp"
#include "mediagen/core/uuid_id.hpp"

namespace mediagen::realtime {

enum class ChannelKind { order, preview, voice_clones, reseller_codes };

struct Channel {
  ChannelKind kind;
  std::optional<OrderId> order_id;  // order channels: the order's (named lowercase)
  UserId user;           // the owner for the per-user channels
};

// Pusher limits channel names to 200 characters of [A-Za-z0-9_\-=@,.;].
inline constexpr std::size_t kMaxChannelName = 200;

// nullopt for anything that is not one of the four private channels with a well-formed id:
// public and presence channels, unknown names, a malformed uuid or user id.
std::optional<Channel> parse_channel(std::string_view name);

std::string order_channel(std::string_view order_id);
std::string preview_channel(UserId user);
std::string voice_clones_channel(UserId user);
std::string reseller_codes_channel(UserId user);

auth::Scope required_scope(ChannelKind kind);

// A Pusher socket id: two runs of 1..20 digits joined by a dot ("123.456").
bool valid_socket_id(std::string_view socket_id);

}  // namespace mediagen::realtime
