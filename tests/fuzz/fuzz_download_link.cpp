// GET /storage/download: the signed link's query and the Range header (input: line 1 the query
// string, line 2, when present, the Range header's value). Properties:
//   - parse_link_query never crashes; a query it accepts is in link_url's one encoding, so the
//     link rebuilt from what it read is read back identically;
//   - a link the server signs for the key it read verifies, and one changed claim does not;
//   - decide_range, against files of several sizes, answers a range inside the file only.
#include <cstdint>
#include <limits>
#include <optional>
#include <string>
#include <string_view>
#include <variant>

#include "fuzz_support.hpp"
#include "mediagen/storage/link_signer.hpp"
#include "storage/byte_range.hpp"
#include "storage/download_link.hpp"

namespace {

using namespace mediagen::storage;
using mediagen::fuzz::as_text;
using mediagen::fuzz::Lines;

const LinkSigner& signer() {
  static const LinkSigner s("fuzz-link-secret-0123456789abcdef");
  return s;
}

constexpr std::uint64_t kSizes[] = {0, 1, 2, 1000, 1u << 20, std::numeric_limits<std::uint64_t>::max() / 2,
                                    std::numeric_limits<std::uint64_t>::max()};

bool same_link(const DownloadLink& a, const DownloadLink& b) {
  return a.key == b.key && a.expires_at == b.expires_at && a.download == b.download && a.signature == b.signature;
}

void check_link(std::string_view query) {
  const auto link = parse_link_query(query);
  if (!link) return;
  FUZZ_CHECK(link->expires_at >= 0);
  // link_url writes "<endpoint>?<query>"; with an empty endpoint the query follows the '?'.
  const std::string rebuilt = link_url("", link->claims(), link->signature);
  FUZZ_CHECK(!rebuilt.empty() && rebuilt.front() == '?');
  const auto again = parse_link_query(std::string_view(rebuilt).substr(1));
  FUZZ_CHECK(again && same_link(*again, *link));
  // Whatever the input's signature, the server's own one for these claims verifies; one claim
  // changed, it does not.
  const std::string signature = signer().sign(link->claims());
  FUZZ_CHECK(signature.size() == 43);
  FUZZ_CHECK(signer().verify(link->claims(), signature));
  LinkClaims other = link->claims();
  other.download = !other.download;
  FUZZ_CHECK(!signer().verify(other, signature));
  other = link->claims();
  other.expires_at += 1;
  FUZZ_CHECK(!signer().verify(other, signature));
  (void)signer().verify(link->claims(), link->signature);
}

void check_range(std::optional<std::string_view> range) {
  for (const std::uint64_t size : kSizes) {
    const RangeDecision decision = decide_range(range, size);
    if (const auto* part = std::get_if<ByteRange>(&decision)) {
      FUZZ_CHECK(part->first <= part->last && part->last < size);
      FUZZ_CHECK(part->length() >= 1 && part->length() <= size);
    }
    if (!range) FUZZ_CHECK(std::holds_alternative<WholeFile>(decision));
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  Lines lines{as_text(data, size)};
  std::string_view query, range;
  if (!lines.next(query)) return 0;
  check_link(query);
  check_range(lines.next(range) ? std::optional<std::string_view>(range) : std::nullopt);
  return 0;
}
