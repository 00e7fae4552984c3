// Key invalidations as every instance reads them from Redis (input: one payload on
// "<prefix>keys:invalidate"): signed by the operator CLI, untrusted until verified. Properties:
//   - the signer accepts a payload only as sign wrote it, within kMaxInvalidationBytes, and
//     never one signed under another secret;
//   - parse_invalidation accepts only "key " and 64 hex digits, or "user " or "profile " and a
//     positive id of at most 20 digits with no leading zero; formatted again, what it read is the
//     same message;
//   - anything signed within the cap verifies to what was signed.
#include "app/invalidation.hpp"
#include "fuzz_support.hpp"

namespace {

using namespace mediagen;
using namespace mediagen::app;
using mediagen::fuzz::as_text;

const MessageSigner& signer() {
  static const MessageSigner s = invalidation_signer("fuzz secret");
  return s;
}

void check_message(std::string_view message) {
  const auto what = parse_invalidation(message);
  if (!what) return;
  FUZZ_CHECK(message.size() <= 28 || message.size() == 68);
  const auto again = parse_invalidation(format_invalidation(*what));
  FUZZ_CHECK(again && *again == *what);
  if (!std::holds_alternative<crypto::Sha256Digest>(*what)) FUZZ_CHECK(format_invalidation(*what) == message);
  if (const auto* user = std::get_if<UserId>(&*what)) FUZZ_CHECK(user->value > 0);
  if (const auto* profile = std::get_if<ProfileOf>(&*what)) FUZZ_CHECK(profile->user.value > 0);
}

void check_payload(std::string_view payload) {
  if (const auto message = signer().verify(payload)) {
    FUZZ_CHECK(signer().sign(*message) == payload);
    FUZZ_CHECK(payload.size() <= kMaxInvalidationBytes);
    static const MessageSigner other = invalidation_signer("another secret");
    FUZZ_CHECK(!other.verify(payload));
    check_message(*message);
  }
  const std::string signed_payload = signer().sign(payload);
  const auto verified = signer().verify(signed_payload);
  FUZZ_CHECK(verified.has_value() == (signed_payload.size() <= kMaxInvalidationBytes));
  if (verified) FUZZ_CHECK(*verified == payload);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view text = as_text(data, size);
  check_message(text);
  check_payload(text);
  return 0;
}
