// The S3 store's writer (one PUT, or a multipart upload one part in memory at a time) and its
// reader (ranged GETs pinned to an ETag).
#include <string>
#include <vector>

#include "media_type.hpp"
#include "s3_detail.hpp"
#include "s3_xml.hpp"

namespace mediagen::storage::s3 {
namespace {

using Op = S3Store::Op;
using Outcome = S3Store::Outcome;

class S3Writer final : public ObjectWriter {
 public:
  S3Writer(S3Store& store, std::string key) : store_(store), key_(std::move(key)), object_(store.object_name(key_)) {}
  S3Writer(const S3Writer&) = delete;
  S3Writer& operator=(const S3Writer&) = delete;
  ~S3Writer() override {
    if (!committed_) abort_upload();
  }

  StoreResult<void> write(std::string_view bytes) override {
    if (spent_) return spent("write");
    const std::size_t part = static_cast<std::size_t>(store_.options().part_bytes);
    while (!bytes.empty()) {
      const std::size_t take = std::min(bytes.size(), part - buffer_.size());
      buffer_.append(bytes.substr(0, take));
      bytes.remove_prefix(take);
      written_ += take;
      if (buffer_.size() == part) {
        if (auto sent = send_part(); !sent) return fail(sent.error());
      }
    }
    return {};
  }

  StoreResult<void> commit() override {
    if (spent_) return spent("commit");
    spent_ = true;  // once, whatever happens
    if (upload_id_.empty()) {
      if (auto put = store_.put(key_, buffer_); !put) return fail(put.error());
    } else {
      if (!buffer_.empty() || etags_.empty()) {
        if (auto sent = send_part(); !sent) return fail(sent.error());
      }
      if (auto completed = complete(); !completed) return fail(completed.error());
    }
    committed_ = true;
    std::string().swap(buffer_);
    return {};
  }

  std::uint64_t written() const override { return written_; }

 private:
  StoreError spent(std::string_view operation) const {
    return StoreError{StoreErrc::io_error, 0, "S3 " + std::string(operation) + " " + key_ + ": the writer is spent"};
  }

  StoreError fail(StoreError error) {
    spent_ = true;
    abort_upload();
    std::string().swap(buffer_);
    return error;
  }

  StoreResult<void> initiate() {
    auto answer = store_.send({.op = Op::initiate,
                               .method = "POST",
                               .object = object_,
                               .query = {{"uploads", ""}},
                               .headers = {"Content-Type: " + std::string(media_type_for(key_))}},
                              key_);
    if (!answer) return answer.error();
    auto id = is_success(*answer) ? parse_upload_id(answer->body) : std::nullopt;
    if (!id) {
      store_.count(Op::initiate, Outcome::error);
      return answer_error("POST uploads", key_, *answer);
    }
    store_.count(Op::initiate, Outcome::ok);
    upload_id_ = std::move(*id);
    return {};
  }

  StoreResult<void> send_part() {
    if (upload_id_.empty()) {
      if (auto started = initiate(); !started) return started.error();
    }
    const std::string number = std::to_string(etags_.size() + 1);
    auto answer = store_.send({.op = Op::part,
                               .method = "PUT",
                               .object = object_,
                               .query = {{"partNumber", number}, {"uploadId", upload_id_}},
                               .body = buffer_},
                              key_);
    if (!answer) return answer.error();
    if (!is_success(*answer) || answer->etag.empty()) {
      store_.count(Op::part, Outcome::error);
      return answer_error("PUT part " + number, key_, *answer);
    }
    store_.count(Op::part, Outcome::ok);
    etags_.push_back(answer->etag);
    buffer_.clear();
    return {};
  }

  StoreResult<void> complete() {
    std::string xml = "<CompleteMultipartUpload>";
    for (std::size_t i = 0; i < etags_.size(); ++i) {
      xml += "<Part><PartNumber>" + std::to_string(i + 1) + "</PartNumber><ETag>" + etags_[i] + "</ETag></Part>";
    }
    xml += "</CompleteMultipartUpload>";
    auto answer = store_.send({.op = Op::complete,
                               .method = "POST",
                               .object = object_,
                               .query = {{"uploadId", upload_id_}},
                               .headers = {"Content-Type: application/xml"},
                               .body = xml},
                              key_);
    if (!answer) return answer.error();
    // S3 may answer 200 and then an <Error> body: only the result element is a success.
    if (!is_success(*answer) || !parse_complete(answer->body)) {
      store_.count(Op::complete, Outcome::error);
      return answer_error("POST complete", key_, *answer);
    }
    store_.count(Op::complete, Outcome::ok);
    return {};
  }

  // Best effort: an upload left behind holds no visible object, and a bucket lifecycle rule
  // ("abort incomplete multipart uploads") collects what a failed abort leaves.
  void abort_upload() noexcept {
    if (upload_id_.empty()) return;
    try {
      auto answer = store_.send(
          {.op = Op::abort, .method = "DELETE", .object = object_, .query = {{"uploadId", upload_id_}}}, key_);
      if (answer) store_.count(Op::abort, is_success(*answer) ? Outcome::ok : Outcome::error);
    } catch (...) {
      // Nothing may leave a destructor; the upload stays for the lifecycle rule.
    }
    upload_id_.clear();
  }

  S3Store& store_;
  std::string key_;
  std::string object_;
  std::string buffer_;  // at most one part
  std::string upload_id_;
  std::vector<std::string> etags_;
  std::uint64_t written_ = 0;
  bool spent_ = false;
  bool committed_ = false;
};

class S3Reader final : public ObjectReader {
 public:
  S3Reader(S3Store& store, std::string key, std::uint64_t size, std::string etag)
      : store_(store), key_(std::move(key)), size_(size), etag_(std::move(etag)) {}
  std::uint64_t size() const override { return size_; }

  StoreResult<std::string> read(std::uint64_t offset, std::uint64_t length) override {
    if (offset >= size_ || length == 0) return std::string();
    length = std::min(length, size_ - offset);
    std::vector<std::string> headers = {"Range: bytes=" + std::to_string(offset) + "-" + std::to_string(offset + length - 1)};
    if (!etag_.empty()) headers.push_back("If-Match: " + etag_);
    auto answer = store_.send({.op = Op::get,
                               .method = "GET",
                               .object = store_.object_name(key_),
                               .headers = std::move(headers),
                               .max_body = answer_room(length)},
                              key_);
    if (!answer) return answer.error();
    if (answer->status == 404) {
      store_.count(Op::get, Outcome::not_found);
      return StoreError::not_found(key_);
    }
    if (answer->status == 412) {
      store_.count(Op::get, Outcome::error);
      return StoreError{StoreErrc::io_error, 0, "S3 GET " + key_ + ": the object changed since it was opened"};
    }
    const bool whole = answer->status == 200 && offset == 0 && length == size_;
    if ((answer->status != 206 && !whole) || answer->body.size() != length) {
      store_.count(Op::get, Outcome::error);
      return answer_error("GET", key_, *answer);
    }
    store_.count(Op::get, Outcome::ok);
    return std::move(answer->body);
  }

 private:
  S3Store& store_;
  std::string key_;
  std::uint64_t size_;
  std::string etag_;
};

}  // namespace

std::unique_ptr<ObjectWriter> make_writer(S3Store& store, std::string key) {
  return std::make_unique<S3Writer>(store, std::move(key));
}

std::unique_ptr<ObjectReader> make_reader(S3Store& store, std::string key, std::uint64_t size, std::string etag) {
  return std::make_unique<S3Reader>(store, std::move(key), size, std::move(etag));
}

}  // namespace mediagen::storage::s3
