#include "outbox_listener.hpp"

#include <libpq-fe.h>

#include "mediagen/core/log.hpp"

namespace mediagen::webhooks {

OutboxListener::~OutboxListener() { drop(); }

void OutboxListener::drop() {
  if (conn_) PQfinish(conn_);
  conn_ = nullptr;
}

int OutboxListener::socket(bool& reconnected) {
  if (conn_ && PQstatus(conn_) == CONNECTION_OK) return PQsocket(conn_);
  drop();
  try {
    conn_ = PQconnectdb(db::connection_string(url_, limits_).c_str());
  } catch (const std::exception& e) {
    log::warn("webhook listener: bad database URL", {{"error", std::string_view(e.what())}});
    return -1;
  }
  if (!conn_ || PQstatus(conn_) != CONNECTION_OK) {
    drop();
    return -1;
  }
  PGresult* r = PQexec(conn_, (std::string("LISTEN ") + kOutboxChannel).c_str());
  const bool listening = r && PQresultStatus(r) == PGRES_COMMAND_OK;
  PQclear(r);
  if (!listening || PQsetnonblocking(conn_, 1) != 0) {
    drop();
    return -1;
  }
  reconnected = true;
  return PQsocket(conn_);
}

bool OutboxListener::drain() {
  if (!conn_) return false;
  if (PQconsumeInput(conn_) != 1) {
    drop();
    return true;
  }
  bool heard = false;
  while (PGnotify* n = PQnotifies(conn_)) {
    heard = true;
    PQfreemem(n);
  }
  return heard;
}

}  // namespace mediagen::webhooks
