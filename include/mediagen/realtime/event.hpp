#pragma once
// One realtime event and the interface that publishes it to every subscriber of its channel,
// on this instance and the others.
#include <cstdint>
#include <string>

namespace mediagen::realtime {

struct Event {
  std::string channel;  // e.g. "private-order.task.<uuid>"
  std::string name;     // e.g. "order.updated"; no namespace on the wire
  std::string data;     // the payload: a JSON object's text
  std::int64_t seq = 0;  // the data's "seq" (order events), 0 when it has none
};

// The Pusher frame of an event: {"event":name,"channel":channel,"data":"<data as a JSON string>"}
// (protocol 7 carries data as a string of JSON).
std::string wire_frame(const Event& event);

// Publishes after the transaction that caused the event committed. Thread-safe; never blocks on
// I/O (local sockets are served at once, other instances through Redis in the background).
class Broadcaster {
 public:
  virtual ~Broadcaster() = default;
  virtual void publish(Event event) = 0;
};

}  // namespace mediagen::realtime
