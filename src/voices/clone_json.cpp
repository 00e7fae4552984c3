// A clone as the API and the realtime event show it.
#include <nlohmann/json.hpp>

#include "mediagen/core/json_text.hpp"
#include "mediagen/realtime/channel.hpp"
#include "mediagen/voices/clones.hpp"

namespace mediagen::voices {
namespace {

using ojson = nlohmann::ordered_json;

// voice_id only at ready (spec 2.6); the reason only at failed.
void add_outcome(ojson& j, const Clone& c) {
  if (c.status == CloneStatus::ready && c.voice_id) j["voice_id"] = *c.voice_id;
  if (c.status == CloneStatus::failed && c.failure_reason) j["reason"] = *c.failure_reason;
}

}  // namespace

std::string clone_json(const Clone& c, const TimeZone& tz) {
  ojson j = ojson::object();
  j["id"] = c.id;
  j["service"] = c.service;
  j["name"] = c.name;
  j["status"] = to_string(c.status);
  add_outcome(j, c);
  j["sample_count"] = c.sample_count;
  j["sample_seconds"] = c.sample_seconds ? ojson(*c.sample_seconds) : ojson(nullptr);
  j["attempts"] = c.attempts;
  j["created_at"] = tz.format(c.created_at);
  j["updated_at"] = tz.format(c.updated_at);
  return to_json_text(j);
}

realtime::Event clone_event(const Clone& c) {
  ojson j = ojson::object();
  j["id"] = c.id;
  j["service"] = c.service;
  j["status"] = to_string(c.status);
  add_outcome(j, c);
  j["name"] = c.name;
  j["updated_at"] = TimeZone::utc().format(c.updated_at);
  return {.channel = realtime::voice_clones_channel(c.user), .name = "voice_clone.updated", .data = to_json_text(j)};
}

}  // namespace mediagen::voices
