#pragma once
// An S3-compatible object store: keys become objects "PREFIX/key" of one bucket.
//
// Every request is signed with Signature V4 and bounded in time (connect, stall and total
// timeouts; no redirect is followed). Retry rule: a request that
// times out, cannot connect, is cut off, or is answered 5xx or 429 is sent again, at most
// `attempts` times in all, after a pause drawn uniformly from [0, min(backoff_cap,
// backoff_base * 2^(n-1))] before the n-th retry ("full jitter"); any other answer is final.
// A writer keeps one part in memory: small objects go up as one PUT on commit, larger ones as a
// multipart upload completed on commit and aborted when the writer fails or is dropped, so
// nothing is visible under the key before the commit. A reader pins the ETag it saw on opening
// and reads ranges with If-Match: a replaced object fails the read instead of mixing bytes.
// Holds no state but its options and counters: any number of threads may call it at once.
#include <array>
#include <atomic>
#include <chrono>
#include <cstdint>
#include <memory>
#include <string>
#include <utility>
#include <variant>
#include <vector>

#include "mediagen/storage/object_store.hpp"

namespace mediagen::storage {

namespace s3 {
struct HttpResponse;
struct Credentials;
}

struct S3Options {
  // "http://host:port" (path-style requests); empty: AWS itself, virtual-hosted over https.
  std::string endpoint;
  std::string bucket;
  std::string prefix;  // inside the bucket, without a leading or trailing '/'; may be empty
  std::string region = "us-east-1";
  std::string access_key;
  std::string secret_key;
  // Multipart parts (S3 refuses parts under 5 MiB but the last); also the writer's memory.
  std::uint64_t part_bytes = 8 * 1024 * 1024;
  int list_page_keys = 1000;  // ListObjectsV2 max-keys
  int attempts = 4;
  std::chrono::milliseconds backoff_base{100};
  std::chrono::milliseconds backoff_cap{2000};
  std::chrono::milliseconds connect_timeout{3000};
  std::chrono::milliseconds request_timeout{120000};  // one request, a whole part included
  std::chrono::seconds stall_timeout{10};            // no byte moving this long: a timeout
};

class S3Store final : public ObjectStore {
 public:
  // The options checked (bucket, prefix, endpoint, credentials, sizes); the error's words name
  // what is wrong. Makes no request.
  static std::variant<std::unique_ptr<S3Store>, std::string> open(S3Options options);

  StoreResult<std::unique_ptr<ObjectWriter>> open_writer(std::string_view key) override;
  StoreResult<void> put(std::string_view key, std::string_view bytes) override;
  StoreResult<std::optional<std::uint64_t>> stat(std::string_view key) override;
  StoreResult<std::string> read(std::string_view key, std::uint64_t offset, std::uint64_t length) override;
  StoreResult<std::unique_ptr<ObjectReader>> open_reader(std::string_view key) override;
  StoreResult<bool> remove(std::string_view key) override;
  StoreResult<std::uint64_t> remove_prefix(std::string_view prefix) override;

  // A presigned GET of the key's object valid `expires_seconds` (1 .. 7 days) from `now_unix`;
  // `download` asks S3 to answer with an attachment disposition. No request is made.
  std::string presign_get(std::string_view key, bool download, std::int64_t expires_seconds,
                          std::int64_t now_unix) const;

  // mediagen_storage_requests_total{op,outcome} in Prometheus text.
  void render_metrics(std::string& out) const;

  enum class Op { put, initiate, part, complete, abort, get, head, remove, list, count_ };
  enum class Outcome { ok, not_found, error, count_ };

  // One signed request with the retry rule above; an answer of any status, or io_error when no
  // answer came. Used by the writer and reader of s3_store.cpp.
  struct Call {
    Op op;
    std::string method;
    std::string object;  // the object's name in the bucket; empty for the bucket itself
    std::vector<std::pair<std::string, std::string>> query;
    std::vector<std::string> headers;  // sent unsigned, beside the signed ones
    std::string_view body;
    std::size_t max_body = 64 * 1024;
  };
  StoreResult<s3::HttpResponse> send(const Call& call, std::string_view key);
  void count(Op op, Outcome outcome);
  std::string object_name(std::string_view key) const;
  const S3Options& options() const { return options_; }

 private:
  explicit S3Store(S3Options options);
  std::string host() const;
  // Where requests go: AWS_ENDPOINT_URL, or the bucket's virtual host on AWS.
  std::string base_url() const;
  s3::Credentials credentials() const;
  std::string path_of(std::string_view object) const;

  S3Options options_;
  std::array<std::array<std::atomic<std::uint64_t>, static_cast<std::size_t>(Outcome::count_)>,
             static_cast<std::size_t>(Op::count_)>
      counts_{};
};

}  // namespace mediagen::storage
