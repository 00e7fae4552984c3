// Standard Webhooks: secrets, signatures and the message body (webhooks.hpp).
#include "mediagen/core/crypto.hpp"
#include "mediagen/core/json_writer.hpp"
#include "mediagen/core/time_zone.hpp"
#include "mediagen/webhooks/webhooks.hpp"

namespace mediagen::webhooks {
namespace {
constexpr std::string_view kSecretPrefix = "whsec_";
}  // namespace

std::string new_secret() { return std::string(kSecretPrefix) + crypto::base64(crypto::random_bytes(32)); }

std::optional<std::string> secret_key(std::string_view secret) {
  if (secret.substr(0, kSecretPrefix.size()) != kSecretPrefix) return std::nullopt;
  auto key = crypto::base64_decode(secret.substr(kSecretPrefix.size()));
  if (!key || key->empty()) return std::nullopt;
  return key;
}

std::string sign(std::string_view secret, std::string_view id, std::int64_t timestamp, std::string_view body) {
  const auto key = secret_key(secret).value_or(std::string(secret));
  std::string content;
  content.reserve(id.size() + body.size() + 24);
  content.append(id).append(".").append(std::to_string(timestamp)).append(".").append(body);
  return "v1," + crypto::base64(crypto::hmac_sha256(key, content));
}

std::string message_body(std::string_view type, TimePoint at, std::string_view data) {
  std::string out;
  out.reserve(64 + data.size());
  out += R"({"type":)";
  append_json_string(out, type);
  out += R"(,"timestamp":)";
  append_json_string(out, TimeZone::utc().format(at));
  out += R"(,"data":)";
  out += data;
  out += '}';
  return out;
}

}  // namespace mediagen::webhooks
