#pragma once
// The deliverer's ear on PostgreSQL: a libpq connection of its own that LISTENs on the channel
// the outbox triggers NOTIFY when they write messages, so that an idle deliverer asks the
// database nothing until there is something to send (any instance's change wakes every one).
#include <string>

#include "mediagen/db/connection.hpp"

struct pg_conn;

namespace mediagen::webhooks {

inline constexpr const char* kOutboxChannel = "mediagen_webhooks";

class OutboxListener {
 public:
  OutboxListener(std::string url, db::ConnectLimits limits) : url_(std::move(url)), limits_(limits) {}
  ~OutboxListener();
  OutboxListener(const OutboxListener&) = delete;
  OutboxListener& operator=(const OutboxListener&) = delete;

  // The socket to wait on, connecting (and LISTENing) first when needed; -1 when PostgreSQL
  // cannot be reached now. `reconnected` is set when a new connection was made: notifications
  // may have been missed, so the caller looks for due messages.
  int socket(bool& reconnected);
  // Reads what arrived; true when a notification was among it. A broken connection is dropped
  // (the next socket() reconnects) and counts as a notification.
  bool drain();

 private:
  void drop();

  std::string url_;
  db::ConnectLimits limits_;
  pg_conn* conn_ = nullptr;
};

}  // namespace mediagen::webhooks
