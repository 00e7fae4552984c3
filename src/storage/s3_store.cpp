// The S3 store: options, signed requests with retries, and the calls on whole objects.
#include "mediagen/storage/s3_store.hpp"

#include <chrono>
#include <cstring>
#include <exception>
#include <thread>

#include "mediagen/core/crypto.hpp"
#include "media_type.hpp"
#include "s3_detail.hpp"
#include "s3_sign.hpp"
#include "s3_xml.hpp"

namespace mediagen::storage {
namespace {

using s3::HttpResponse;

constexpr std::uint64_t kMinPartBytes = 5 * 1024 * 1024;

std::optional<std::string> check_options(const S3Options& o) {
  if (o.bucket.size() < 3 || o.bucket.size() > 63 || o.bucket.front() == '-' || o.bucket.back() == '-' ||
      o.bucket.find_first_not_of("abcdefghijklmnopqrstuvwxyz0123456789-.") != std::string::npos) {
    return "bucket '" + o.bucket + "': expected 3-63 of a-z, 0-9, '-' and '.'";
  }
  if (!o.prefix.empty() && !is_valid_key(o.prefix)) {
    return "prefix '" + o.prefix + "': expected '/'-separated segments of A-Z, a-z, 0-9, '.', '_', '-'";
  }
  if (o.access_key.empty() || o.secret_key.empty()) {
    return "AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY are required";
  }
  if (o.region.empty() || o.region.find_first_not_of("abcdefghijklmnopqrstuvwxyz0123456789-") != std::string::npos) {
    return "AWS_REGION '" + o.region + "': expected a region name such as us-east-1";
  }
  if (!o.endpoint.empty()) {
    const auto scheme = o.endpoint.find("://");
    const std::string name = scheme == std::string::npos ? "" : o.endpoint.substr(0, scheme);
    const std::string authority = scheme == std::string::npos ? "" : o.endpoint.substr(scheme + 3);
    if ((name != "http" && name != "https") || authority.empty() ||
        authority.find_first_of("/?#@ ") != std::string::npos) {
      return "AWS_ENDPOINT_URL '" + o.endpoint + "': expected http(s)://host[:port]";
    }
  }
  if (o.part_bytes < kMinPartBytes || o.part_bytes > (std::uint64_t{1} << 30)) return "part size out of [5 MiB, 1 GiB]";
  if (o.list_page_keys < 1 || o.list_page_keys > 1000) return "list page out of [1, 1000]";
  if (o.attempts < 1 || o.attempts > 10) return "attempts out of [1, 10]";
  return std::nullopt;
}

bool worth_retrying(const boost::system::result<HttpResponse, s3::TransportError>& answer) {
  if (!answer) {
    const auto kind = answer.error().kind;
    return kind == s3::TransportKind::timeout || kind == s3::TransportKind::connect || kind == s3::TransportKind::reset;
  }
  return answer->status >= 500 || answer->status == 429;
}

// Full jitter: uniform in [0, min(cap, base * 2^(retry-1))].
std::chrono::milliseconds backoff(const S3Options& o, int retry) {
  const auto ceiling = std::min<std::int64_t>(o.backoff_cap.count(), o.backoff_base.count() << std::min(retry - 1, 20));
  if (ceiling <= 0) return std::chrono::milliseconds(0);
  std::uint32_t random = 0;
  const std::string bytes = crypto::random_bytes(sizeof random);
  std::memcpy(&random, bytes.data(), sizeof random);
  return std::chrono::milliseconds(random % (ceiling + 1));
}

std::int64_t now_unix() {
  return std::chrono::duration_cast<std::chrono::seconds>(std::chrono::system_clock::now().time_since_epoch()).count();
}

std::string printable(std::string_view text, std::size_t limit) {
  std::string out;
  for (const char c : text.substr(0, limit)) out += (c >= 0x20 && c < 0x7f) ? c : '?';
  return out;
}

}  // namespace

namespace s3 {

bool is_success(const HttpResponse& r) { return r.status >= 200 && r.status < 300; }

StoreError answer_error(std::string_view operation, std::string_view key, const HttpResponse& r) {
  std::string detail = "S3 " + std::string(operation) + " " + std::string(key) + ": HTTP " + std::to_string(r.status);
  if (auto error = parse_error(r.body)) detail += " " + printable(error->code, 64) + ": " + printable(error->message, 200);
  return {StoreErrc::io_error, 0, std::move(detail)};
}

}  // namespace s3

S3Store::S3Store(S3Options options) : options_(std::move(options)) {}

std::variant<std::unique_ptr<S3Store>, std::string> S3Store::open(S3Options options) {
  while (!options.prefix.empty() && options.prefix.back() == '/') options.prefix.pop_back();
  while (!options.endpoint.empty() && options.endpoint.back() == '/') options.endpoint.pop_back();
  if (auto problem = check_options(options)) return *problem;
  return std::unique_ptr<S3Store>(new S3Store(std::move(options)));
}

std::string S3Store::host() const {
  if (options_.endpoint.empty()) return options_.bucket + ".s3." + options_.region + ".amazonaws.com";
  std::string authority = options_.endpoint.substr(options_.endpoint.find("://") + 3);
  // The Host header curl would send: the default port left out.
  const bool https = options_.endpoint.rfind("https", 0) == 0;
  const std::string_view default_port = https ? ":443" : ":80";
  if (authority.size() > default_port.size() && authority.ends_with(default_port)) {
    authority.resize(authority.size() - default_port.size());
  }
  return authority;
}

std::string S3Store::base_url() const {
  return options_.endpoint.empty() ? "https://" + host() : options_.endpoint;
}

s3::Credentials S3Store::credentials() const {
  return {options_.access_key, options_.secret_key, options_.region};
}

std::string S3Store::path_of(std::string_view object) const {
  if (options_.endpoint.empty()) return "/" + std::string(object);
  return "/" + options_.bucket + (object.empty() ? "" : "/" + std::string(object));
}

std::string S3Store::object_name(std::string_view key) const {
  return options_.prefix.empty() ? std::string(key) : options_.prefix + "/" + std::string(key);
}

void S3Store::count(Op op, Outcome outcome) {
  counts_[static_cast<std::size_t>(op)][static_cast<std::size_t>(outcome)].fetch_add(1, std::memory_order_relaxed);
}

StoreResult<HttpResponse> S3Store::send(const Call& call, std::string_view key) {
  const s3::Credentials creds = credentials();
  const std::string base = base_url();
  const std::string path = path_of(call.object);
  const std::string payload_hash = s3::sha256_hex(call.body);
  const s3::HttpLimits limits{options_.connect_timeout, options_.request_timeout, options_.stall_timeout};
  for (int attempt = 1; attempt <= options_.attempts; ++attempt) {
    if (attempt > 1) std::this_thread::sleep_for(backoff(options_, attempt - 1));
    s3::CanonicalInput in{.method = call.method,
                          .path = path,
                          .query = call.query,
                          .headers = {{"host", host()}, {"x-amz-content-sha256", payload_hash}},
                          .payload_hash = payload_hash,
                          .amz_date = s3::amz_date(now_unix())};
    in.headers.emplace_back("x-amz-date", in.amz_date);
    s3::HttpRequest request{.method = call.method,
                            .url = base + s3::uri_encode(path, true),
                            .headers = call.headers,
                            .body = call.body,
                            .max_body = call.max_body};
    const std::string query = [&] {
      std::string q;
      for (const auto& [name, value] : call.query) {
        q += (q.empty() ? "?" : "&") + s3::uri_encode(name, false) + "=" + s3::uri_encode(value, false);
      }
      return q;
    }();
    request.url += query;
    for (const auto& [name, value] : in.headers) request.headers.push_back(name + ": " + value);
    request.headers.push_back("Authorization: " + s3::authorization(creds, in));
    auto answer = s3::exchange(request, limits);
    if (!worth_retrying(answer) || attempt == options_.attempts) {
      if (answer) return std::move(*answer);
      count(call.op, Outcome::error);
      return StoreError{StoreErrc::io_error, 0,
                        "S3 " + call.method + " " + std::string(key) + ": " + answer.error().detail + " after " +
                            std::to_string(attempt) + (attempt == 1 ? " attempt" : " attempts")};
    }
  }
  return StoreError{StoreErrc::io_error, 0, "S3 " + call.method + " " + std::string(key) + ": no attempt"};
}

StoreResult<std::unique_ptr<ObjectWriter>> S3Store::open_writer(std::string_view key) {
  if (!is_valid_key(key)) return StoreError::invalid_key(key);
  return s3::make_writer(*this, std::string(key));
}

StoreResult<void> S3Store::put(std::string_view key, std::string_view bytes) {
  if (!is_valid_key(key)) return StoreError::invalid_key(key);
  if (bytes.size() > options_.part_bytes) {
    auto writer = open_writer(key);
    if (!writer) return writer.error();
    if (auto written = (*writer)->write(bytes); !written) return written.error();
    return (*writer)->commit();
  }
  auto answer = send({.op = Op::put,
                      .method = "PUT",
                      .object = object_name(key),
                      .headers = {"Content-Type: " + std::string(media_type_for(key))},
                      .body = bytes},
                     key);
  if (!answer) return answer.error();
  if (!s3::is_success(*answer)) {
    count(Op::put, Outcome::error);
    return s3::answer_error("PUT", key, *answer);
  }
  count(Op::put, Outcome::ok);
  return {};
}

}  // namespace mediagen::storage
