#include "mediagen/realtime/event.hpp"

#include "mediagen/core/json_writer.hpp"

namespace mediagen::realtime {

// Built once per event and shared by every subscriber: no tree, the strings escaped in place.
// Protocol 7 carries data as a string, so the payload's JSON text is escaped a second time.
std::string wire_frame(const Event& event) {
  std::string frame;
  frame.reserve(40 + event.name.size() + event.channel.size() + event.data.size() * 5 / 4);
  frame += R"({"event":)";
  append_json_string(frame, event.name);
  frame += R"(,"channel":)";
  append_json_string(frame, event.channel);
  frame += R"(,"data":)";
  append_json_string(frame, event.data);
  frame += '}';
  return frame;
}

}  // namespace mediagen::realtime
