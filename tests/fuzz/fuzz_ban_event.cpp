// Ban events as every instance reads them from Redis (input: one payload), published on
// "<prefix>bans:events" and recorded in the bans hash. Redis is shared infrastructure, so a
// payload is untrusted. Properties:
//   - read_event accepts a payload only as signed_event wrote it (the signature of the message
//     under the ladder's key, in lower-case hex), and counts every payload it refuses for its
//     signature;
//   - parse_event (the message alone) accepts only an address of at most 45 address characters,
//     a step in [1, kMaxBanStep] and an end within [0, max_ban_unix_seconds()], so the end is a
//     TimePoint that did not overflow; the event signed again reads back to the same ban;
//   - anything signed that is within the size cap and well formed is read back.
#include "fuzz_support.hpp"
#include "mediagen/cache/ban_ladder.hpp"

namespace {

using namespace mediagen;
using namespace mediagen::cache;
using mediagen::fuzz::as_text;

std::int64_t unix_seconds(TimePoint t) {
  return std::chrono::duration_cast<std::chrono::seconds>(t.time_since_epoch()).count();
}

const BanLadder& ladder() {
  static const BanLadder l({.prefix = "fuzz:", .secret = "fuzz secret"});
  return l;
}

void check_message(std::string_view message) {
  const auto event = BanLadder::parse_event(message);
  if (!event) return;
  FUZZ_CHECK(!event->first.empty() && event->first.size() <= 45 && message.size() <= 128);
  FUZZ_CHECK(event->second.step >= 1 && event->second.step <= kMaxBanStep);
  const auto until = unix_seconds(event->second.until);
  FUZZ_CHECK(until >= 0 && until <= max_ban_unix_seconds());
  const auto again = ladder().read_event(ladder().signed_event(event->first, event->second));
  FUZZ_CHECK(again && again->first == event->first && again->second.until == event->second.until &&
             again->second.step == event->second.step);
}

void check_payload(std::string_view payload) {
  const auto before = ladder().unsigned_events();
  const auto event = ladder().read_event(payload);
  if (event) {
    // Only what signed_event writes: the same ban, signed again, is this very payload up to
    // the spelling of its numbers.
    const auto again = ladder().read_event(ladder().signed_event(event->first, event->second));
    FUZZ_CHECK(again && again->second.until == event->second.until);
    FUZZ_CHECK(payload.size() <= kMaxBanEventBytes && payload.size() > 65 && payload[64] == ' ');
  } else {
    // Refused for its signature (counted), or rightly signed but malformed (not counted).
    const bool counted = ladder().unsigned_events() == before + 1;
    FUZZ_CHECK(counted || !BanLadder::parse_event(payload.substr(payload.size() > 65 ? 65 : payload.size())));
  }
  // A signature from another secret is never accepted.
  static const BanLadder other({.prefix = "fuzz:", .secret = "another secret"});
  if (event) FUZZ_CHECK(!other.read_event(payload));
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view text = as_text(data, size);
  check_message(text);
  check_payload(text);
  return 0;
}
