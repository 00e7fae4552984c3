// What an S3 endpoint answers as XML (src/storage/s3_xml.cpp) and the storage URL
// (src/storage/open_store.cpp). The first byte picks the parser; the rest is the input.
// Properties:
//   - no parser crashes, throws or runs away, whatever the bytes (a DTD is refused);
//   - an upload id is never empty; a truncated list page always carries its token;
//   - a page never holds more keys than the reader's entry bound;
//   - a storage URL read as s3 has a bucket, and a prefix that is a valid key or empty.
#include <string_view>

#include "fuzz_support.hpp"
#include "mediagen/storage/open_store.hpp"
#include "storage/s3_xml.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size == 0) return 0;
  using namespace mediagen::storage;
  const std::string_view body = mediagen::fuzz::as_text(data + 1, size - 1);
  switch (data[0] % 5) {
    case 0: {
      (void)s3::parse_error(body);
      break;
    }
    case 1: {
      const auto id = s3::parse_upload_id(body);
      FUZZ_CHECK(!id || !id->empty());
      break;
    }
    case 2: {
      (void)s3::parse_complete(body);
      break;
    }
    case 3: {
      const auto page = s3::parse_list(body);
      if (page) {
        FUZZ_CHECK(!page->truncated || !page->next_token.empty());
        FUZZ_CHECK(page->keys.size() <= 20000);
      }
      break;
    }
    default: {
      const auto url = parse_storage_url(body);
      if (const auto* parsed = std::get_if<StorageUrl>(&url); parsed && parsed->kind == StorageUrl::Kind::s3) {
        FUZZ_CHECK(!parsed->bucket.empty());
        FUZZ_CHECK(parsed->prefix.empty() || is_valid_key(parsed->prefix));
      }
      break;
    }
  }
  return 0;
}
