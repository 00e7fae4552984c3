#include "mediagen/realtime/channel_signer.hpp"

#include <stdexcept>

#include "mediagen/core/crypto.hpp"

namespace mediagen::realtime {

ChannelSigner::ChannelSigner(std::string app_key, std::string secret)
    : app_key_(std::move(app_key)), secret_(std::move(secret)) {
  // With an empty key anyone could compute every signature.
  if (secret_.empty()) throw std::invalid_argument("the channel-signing secret is empty");
}

std::string ChannelSigner::sign(std::string_view socket_id, std::string_view channel) const {
  std::string message;
  message.reserve(socket_id.size() + 1 + channel.size());
  message += socket_id;
  message += ':';
  message += channel;
  std::string auth = app_key_;
  auth += ':';
  auth += crypto::hmac_sha256_hex(secret_, message);
  return auth;
}

// The whole string is compared, app key included; the time depends only on the lengths.
bool ChannelSigner::verify(std::string_view socket_id, std::string_view channel, std::string_view auth) const {
  return crypto::constant_time_equal(sign(socket_id, channel), auth);
}

}  // namespace mediagen::realtime
