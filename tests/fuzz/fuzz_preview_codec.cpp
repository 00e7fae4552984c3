// Preview documents as kept in Redis (input: a stored value). Redis is shared infrastructure, so
// a value is untrusted. Properties:
//   - unpack_preview never answers more than kMaxPreviewDocumentBytes, and a value it reads
//     packs again into a value that reads the same;
//   - the input behind the packed tag reaches zlib's inflate (corrupt, cut, trailing bytes);
//   - any document packed reads back byte for byte.
#include <string>

#include "fuzz_support.hpp"
#include "orders/preview/preview_codec.hpp"

namespace {

using namespace mediagen::orders;
using mediagen::fuzz::as_text;

void check_stored(std::string_view stored) {
  const auto document = unpack_preview(stored);
  if (!document) return;
  FUZZ_CHECK(document->size() <= kMaxPreviewDocumentBytes);
  const auto again = unpack_preview(pack_preview(*document));
  FUZZ_CHECK(again && *again == *document);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view input = as_text(data, size);
  check_stored(input);
  check_stored(std::string(kPackedPreviewTag) + std::string(input));
  const auto round = unpack_preview(pack_preview(input));
  FUZZ_CHECK(round && *round == input);
  return 0;
}
