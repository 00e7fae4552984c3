// The S3 store's calls on existing objects: HEAD, ranged GET, DELETE, listing, presigned links,
// and the count of requests.
#include <algorithm>

#include "mediagen/storage/s3_store.hpp"
#include "media_type.hpp"
#include "s3_detail.hpp"
#include "s3_sign.hpp"
#include "s3_xml.hpp"

namespace mediagen::storage {
namespace {

using s3::HttpResponse;

constexpr std::array<const char*, static_cast<std::size_t>(S3Store::Op::count_)> kOpNames = {
    "put", "initiate", "part", "complete", "abort", "get", "head", "delete", "list"};
constexpr std::array<const char*, static_cast<std::size_t>(S3Store::Outcome::count_)> kOutcomeNames = {
    "ok", "not_found", "error"};

std::string range_header(std::uint64_t offset, std::uint64_t length) {
  return "Range: bytes=" + std::to_string(offset) + "-" + std::to_string(offset + length - 1);
}

// The HEAD of an object: its size and ETag, nullopt when there is none.
struct Head {
  std::uint64_t size = 0;
  std::string etag;
};

StoreResult<std::optional<Head>> head(S3Store& store, std::string_view key) {
  if (!is_valid_key(key)) return StoreError::invalid_key(key);
  auto answer = store.send({.op = S3Store::Op::head, .method = "HEAD", .object = store.object_name(key)}, key);
  if (!answer) return answer.error();
  if (answer->status == 404) {
    store.count(S3Store::Op::head, S3Store::Outcome::not_found);
    return std::optional<Head>{};
  }
  if (!s3::is_success(*answer) || !answer->content_length) {
    store.count(S3Store::Op::head, S3Store::Outcome::error);
    return s3::answer_error("HEAD", key, *answer);
  }
  store.count(S3Store::Op::head, S3Store::Outcome::ok);
  return std::optional<Head>{Head{*answer->content_length, answer->etag}};
}

}  // namespace

StoreResult<std::optional<std::uint64_t>> S3Store::stat(std::string_view key) {
  auto found = head(*this, key);
  if (!found) return found.error();
  if (!*found) return std::optional<std::uint64_t>{};
  return std::optional<std::uint64_t>{(*found)->size};
}

StoreResult<std::string> S3Store::read(std::string_view key, std::uint64_t offset, std::uint64_t length) {
  if (!is_valid_key(key)) return StoreError::invalid_key(key);
  if (length == 0) {
    auto found = stat(key);
    if (!found) return found.error();
    if (!*found) return StoreError::not_found(key);
    return std::string();
  }
  auto answer = send({.op = Op::get,
                      .method = "GET",
                      .object = object_name(key),
                      .headers = {range_header(offset, length)},
                      .max_body = s3::answer_room(length)},
                     key);
  if (!answer) return answer.error();
  if (answer->status == 404) {
    count(Op::get, Outcome::not_found);
    return StoreError::not_found(key);
  }
  if (answer->status == 416) {  // the offset is at or past the end
    count(Op::get, Outcome::ok);
    return std::string();
  }
  if (answer->status != 206 && !(answer->status == 200 && offset == 0)) {
    count(Op::get, Outcome::error);
    return s3::answer_error("GET", key, *answer);
  }
  count(Op::get, Outcome::ok);
  if (answer->body.size() > length) answer->body.resize(static_cast<std::size_t>(length));  // a 200 of more
  return std::move(answer->body);
}

StoreResult<std::unique_ptr<ObjectReader>> S3Store::open_reader(std::string_view key) {
  auto found = head(*this, key);
  if (!found) return found.error();
  if (!*found) return StoreError::not_found(key);
  return s3::make_reader(*this, std::string(key), (*found)->size, std::move((*found)->etag));
}

StoreResult<bool> S3Store::remove(std::string_view key) {
  // S3 answers a DELETE of nothing as a success: the HEAD tells whether there was an object.
  auto found = stat(key);
  if (!found) return found.error();
  if (!*found) return false;
  auto answer = send({.op = Op::remove, .method = "DELETE", .object = object_name(key)}, key);
  if (!answer) return answer.error();
  if (answer->status == 404) {
    count(Op::remove, Outcome::not_found);
    return false;
  }
  if (!s3::is_success(*answer)) {
    count(Op::remove, Outcome::error);
    return s3::answer_error("DELETE", key, *answer);
  }
  count(Op::remove, Outcome::ok);
  return true;
}

StoreResult<std::uint64_t> S3Store::remove_prefix(std::string_view prefix) {
  if (!is_valid_prefix(prefix)) return StoreError::invalid_key(prefix);
  const std::string listed = object_name(prefix);
  std::uint64_t removed = 0;
  std::string token;
  do {
    Call call{.op = Op::list, .method = "GET", .object = "", .query = {{"list-type", "2"}, {"prefix", listed},
              {"max-keys", std::to_string(options().list_page_keys)}}, .max_body = s3::kMaxXmlBytes};
    if (!token.empty()) call.query.emplace_back("continuation-token", token);
    auto answer = send(call, prefix);
    if (!answer) return answer.error();
    if (!s3::is_success(*answer)) {
      count(Op::list, Outcome::error);
      return s3::answer_error("LIST", prefix, *answer);
    }
    auto page = s3::parse_list(answer->body);
    if (!page) {
      count(Op::list, Outcome::error);
      return StoreError{StoreErrc::io_error, 0, "S3 LIST " + std::string(prefix) + ": unreadable answer"};
    }
    count(Op::list, Outcome::ok);
    for (const auto& object : page->keys) {
      // Only names under the prefix asked for are ever deleted, whatever the listing says.
      if (!object.starts_with(listed)) continue;
      auto deleted = send({.op = Op::remove, .method = "DELETE", .object = object}, prefix);
      if (!deleted) return deleted.error();
      if (!s3::is_success(*deleted) && deleted->status != 404) {
        count(Op::remove, Outcome::error);
        return s3::answer_error("DELETE", prefix, *deleted);
      }
      count(Op::remove, deleted->status == 404 ? Outcome::not_found : Outcome::ok);
      if (deleted->status != 404) ++removed;
    }
    token = page->truncated ? page->next_token : std::string();
  } while (!token.empty());
  return removed;
}

std::string S3Store::presign_get(std::string_view key, bool download, std::int64_t expires_seconds,
                                 std::int64_t now_unix) const {
  const std::int64_t life = std::clamp<std::int64_t>(expires_seconds, 1, s3::kMaxPresignSeconds);
  const std::string disposition =
      std::string(download ? "attachment" : "inline") + "; filename=\"" + std::string(key_basename(key)) + "\"";
  const s3::Params extra = {{"response-content-disposition", disposition},
                            {"response-content-type", std::string(media_type_for(key))}};
  const std::string path = path_of(object_name(key));
  return base_url() + s3::uri_encode(path, true) + "?" +
         s3::presign_query(credentials(), host(), path, extra, s3::amz_date(now_unix), life);
}

void S3Store::render_metrics(std::string& out) const {
  out += "# HELP mediagen_storage_requests_total Requests to the S3 object store by operation and outcome.\n";
  out += "# TYPE mediagen_storage_requests_total counter\n";
  for (std::size_t op = 0; op < counts_.size(); ++op) {
    for (std::size_t outcome = 0; outcome < counts_[op].size(); ++outcome) {
      out += "mediagen_storage_requests_total{op=\"" + std::string(kOpNames[op]) + "\",outcome=\"" +
             kOutcomeNames[outcome] + "\"} " + std::to_string(counts_[op][outcome].load(std::memory_order_relaxed)) + "\n";
    }
  }
}

}  // namespace mediagen::storage
