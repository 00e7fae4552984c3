#pragma once
// Pusher private-channel signatures: auth = "<app_key>:" + hex(HMAC-SHA256(secret, "<socket_id>:<channel>")).
#include <string>
#include <string_view>

namespace mediagen::realtime {

class ChannelSigner {
 public:
  ChannelSigner(std::string app_key, std::string secret);

  std::string sign(std::string_view socket_id, std::string_view channel) const;
  // Constant-time comparison of the whole auth string.
  bool verify(std::string_view socket_id, std::string_view channel, std::string_view auth) const;
  const std::string& app_key() const { return app_key_; }

 private:
  std::string app_key_;
  std::string secret_;
};

}  // namespace mediagen::realtime
