#pragma once
// The few answers of S3 that come as XML, read with expat into plain values. Bytes from the
// network: any input (malformed, hostile, huge) gives nullopt, never an exception (fuzzed by
// tests/fuzz/fuzz_s3_xml.cpp).
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace mediagen::storage::s3 {

// Answers larger than this are not read as XML (a ListObjectsV2 page of 1000 keys is ~300 KiB).
inline constexpr std::size_t kMaxXmlBytes = 4 * 1024 * 1024;

struct ErrorBody {
  std::string code;     // "NoSuchKey", "SignatureDoesNotMatch", ...
  std::string message;  // the server's words, for logs
};

struct ListPage {
  std::vector<std::string> keys;
  bool truncated = false;
  std::string next_token;  // NextContinuationToken when truncated
};

// <Error><Code>..</Code><Message>..</Message></Error>; nullopt when the root is not <Error>.
std::optional<ErrorBody> parse_error(std::string_view xml);
// InitiateMultipartUploadResult's UploadId (non-empty).
std::optional<std::string> parse_upload_id(std::string_view xml);
// CompleteMultipartUploadResult's ETag: the answer is a success only with that root (S3 may
// answer 200 and an <Error> body).
std::optional<std::string> parse_complete(std::string_view xml);
// ListBucketResult: the keys of Contents, IsTruncated and NextContinuationToken.
std::optional<ListPage> parse_list(std::string_view xml);

}  // namespace mediagen::storage::s3
