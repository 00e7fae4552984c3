// The one place a webhook message's status names are spelled (besides the outbox's SQL).
#include "mediagen/webhooks/webhooks.hpp"

namespace mediagen::webhooks {

std::string_view to_string(MessageStatus status) {
  switch (status) {
    case MessageStatus::pending: return "pending";
    case MessageStatus::delivered: return "delivered";
    case MessageStatus::failed: return "failed";
  }
  return "failed";
}

std::optional<MessageStatus> parse_message_status(std::string_view text) {
  for (auto s : {MessageStatus::pending, MessageStatus::delivered, MessageStatus::failed}) {
    if (to_string(s) == text) return s;
  }
  return std::nullopt;
}

}  // namespace mediagen::webhooks
