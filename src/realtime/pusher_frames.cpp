#include "pusher_frames.hpp"
#include "mediagen/core/clean_json.hpp"
#include "mediagen/core/json_text.hpp"

#include <nlohmann/json.hpp>

#include "mediagen/core/json_writer.hpp"

namespace mediagen::realtime {

using nlohmann::json;

namespace {

std::string frame(std::string_view event, const json& data, std::string_view channel = {}) {
  json f = {{"event", event}};
  if (!channel.empty()) f["channel"] = channel;
  // Protocol 7 carries data as a string of JSON.
  f["data"] = to_json_text(data);
  return to_json_text(f);
}

}  // namespace

// The two frames every socket gets are built without a JSON tree (a socket id is digits and a
// dot; a channel name is checked to Pusher's character set before it is answered).
std::string connection_established_frame(std::string_view socket_id, std::int64_t activity_timeout_seconds) {
  std::string data = R"({"socket_id":)";
  append_json_string(data, socket_id);
  data += R"(,"activity_timeout":)";
  data += std::to_string(activity_timeout_seconds);
  data += '}';
  std::string out = R"({"event":"pusher:connection_established","data":)";
  append_json_string(out, data);
  out += '}';
  return out;
}

std::string error_frame(int code, std::string_view message) {
  // pusher:error is the one server event whose data is an object, not a string (pusher-js reads
  // data.code and data.message directly).
  json f = {{"event", "pusher:error"}, {"data", {{"code", code}, {"message", message}}}};
  return to_json_text(f);
}

std::string subscription_succeeded_frame(std::string_view channel) {
  std::string out = R"({"event":"pusher_internal:subscription_succeeded","channel":)";
  append_json_string(out, channel);
  out += R"(,"data":"{}"})";
  return out;
}

std::string subscription_error_frame(std::string_view channel, int status, std::string_view message) {
  return frame("pusher:subscription_error", {{"type", "AuthError"}, {"error", message}, {"status", status}}, channel);
}

std::string ping_frame() { return R"({"event":"pusher:ping","data":"{}"})"; }
std::string pong_frame() { return R"({"event":"pusher:pong","data":"{}"})"; }

ParsedClientMessage parse_client_message(std::string_view text) {
  ParsedClientMessage out;
  json j = parse_untrusted_json(text);
  if (j.is_discarded()) return out;
  if (!j.is_object()) {
    out.error = ClientMessageError::not_object;
    return out;
  }
  auto ev = j.find("event");
  if (ev == j.end() || !ev->is_string()) {
    out.error = ClientMessageError::no_event;
    return out;
  }
  ClientMessage m;
  m.event = ev->get<std::string>();
  auto data = j.find("data");
  json parsed_data;
  const json* d = nullptr;
  if (data != j.end()) {
    if (data->is_string()) {
      // Some clients send data as a string of JSON, as the server does.
      parsed_data = parse_untrusted_json(data->get_ref<const std::string&>());
      if (!parsed_data.is_discarded()) d = &parsed_data;
    } else {
      d = &*data;
    }
  }
  if (m.event == "pusher:subscribe" || m.event == "pusher:unsubscribe") {
    if (d == nullptr || !d->is_object()) {
      out.error = ClientMessageError::bad_data;
      return out;
    }
    auto ch = d->find("channel");
    if (ch == d->end() || !ch->is_string()) {
      out.error = ClientMessageError::bad_data;
      return out;
    }
    m.channel = ch->get<std::string>();
    if (auto a = d->find("auth"); a != d->end()) {
      if (!a->is_string()) {
        out.error = ClientMessageError::bad_data;
        return out;
      }
      m.auth = a->get<std::string>();
    }
  } else if (auto ch = j.find("channel"); ch != j.end() && ch->is_string()) {
    m.channel = ch->get<std::string>();
  }
  out.message = std::move(m);
  return out;
}

std::int64_t event_seq(std::string_view data) {
  // Cheap pre-check: most events carry no seq.
  if (data.find("\"seq\"") == std::string_view::npos) return 0;
  json j = parse_untrusted_json(data);
  if (!j.is_object()) return 0;
  auto s = j.find("seq");
  if (s == j.end() || !s->is_number_integer()) return 0;
  return s->get<std::int64_t>();
}

}  // namespace mediagen::realtime
