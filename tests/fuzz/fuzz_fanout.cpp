// Messages on the Redis fan-out channel (input: one message's payload), read as every instance
// reads them: an event, or a grant. Redis is shared infrastructure, so a payload is untrusted.
// Properties:
//   - parse_fanout accepts only an event of one of our private channels, with its origin and
//     frame as the payload's two parts; a frame rebuilt from the event is accepted again;
//   - parse_grant_message accepts only a well-formed socket id and channel; formatted again, the
//     grant it read parses to the same grant and origin;
//   - parse_grant_record (the payload as the record) round-trips the same way;
//   - FanoutSigner::verify accepts a payload only as sign wrote it, and anything sign writes
//     within the size cap verifies to what was signed.
#include <nlohmann/json.hpp>

#include "fuzz_support.hpp"
#include "mediagen/realtime/channel.hpp"
#include "mediagen/realtime/event.hpp"
#include "realtime/fanout_message.hpp"
#include "realtime/fanout_signature.hpp"
#include "realtime/grant_record.hpp"

namespace {

using namespace mediagen::realtime;
using mediagen::fuzz::as_text;

bool same_grant(const Grant& a, const Grant& b) {
  return a.socket_id == b.socket_id && a.channel == b.channel && a.key_id == b.key_id && a.user == b.user &&
         a.key_hash == b.key_hash && a.expires_at == b.expires_at;
}

void check_event(std::string_view payload) {
  const auto m = parse_fanout(payload);
  if (!m) return;
  FUZZ_CHECK(!m->origin.empty() && m->origin.find(' ') == std::string_view::npos);
  FUZZ_CHECK(format_fanout(m->origin, m->frame) == payload);
  FUZZ_CHECK(parse_channel(m->channel).has_value());
  // The same event as this instance would publish it.
  const auto frame = nlohmann::json::parse(m->frame);
  Event event{.channel = m->channel,
              .name = frame.at("event").get<std::string>(),
              .data = frame.at("data").get<std::string>(),
              .seq = m->seq};
  const std::string wire = wire_frame(event);
  const auto again = parse_fanout(format_fanout(m->origin, wire));
  FUZZ_CHECK(again && again->channel == m->channel && again->seq == m->seq);
}

void check_grant(std::string_view payload) {
  const auto m = parse_grant_message(payload);
  if (!m) return;
  FUZZ_CHECK(valid_socket_id(m->grant.socket_id));
  FUZZ_CHECK(parse_channel(m->grant.channel).has_value());
  const std::string formatted = format_grant_message(m->origin, m->grant);
  const auto again = parse_grant_message(formatted);
  FUZZ_CHECK(again && again->origin == m->origin && same_grant(again->grant, m->grant));
}

void check_record(std::string_view text) {
  const auto grant = parse_grant_record("1.2", "private-chunks.preview.7", text);
  if (!grant) return;
  const auto again = parse_grant_record("1.2", "private-chunks.preview.7", format_grant_record(*grant));
  FUZZ_CHECK(again && same_grant(*again, *grant));
}

void check_signature(std::string_view payload) {
  static const FanoutSigner signer(fanout_key("fuzz secret"));
  if (const auto message = signer.verify(payload)) FUZZ_CHECK(signer.sign(*message) == payload);
  const std::string signed_payload = signer.sign(payload);
  const auto verified = signer.verify(signed_payload);
  FUZZ_CHECK(verified.has_value() == (signed_payload.size() <= kMaxFanoutBytes));
  if (verified) FUZZ_CHECK(*verified == payload);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view payload = as_text(data, size);
  check_event(payload);
  check_grant(payload);
  check_record(payload);
  check_signature(payload);
  return 0;
}
