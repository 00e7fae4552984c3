#pragma once
// HTTP of storage (spec 4.3):
//   POST {prefix}/storage/url       orders.download; {path, download?} -> a signed, short-lived link
//   GET  {prefix}/storage/download  no key: the link itself; serves the file with Range support,
//                                   in pieces as the client reads (http::ServerOptions' stream
//                                   limits); HEAD answers from the size alone
// Decisions: a link past its expiry answers 410 Gone (a bad or tampered link 403, a file gone
// by retention 404; with a redirect, S3 answers that); several ranges in one Range header get the whole file with 200.
#include <chrono>
#include <functional>
#include <string>
#include <string_view>

#include "mediagen/core/api_error.hpp"
#include "mediagen/core/clock.hpp"
#include "mediagen/core/ids.hpp"
#include "mediagen/storage/link_signer.hpp"
#include "mediagen/storage/object_store.hpp"

namespace mediagen::http {
class Router;
}
namespace mediagen::db {
class BlockingPool;
class Db;
}  // namespace mediagen::db

namespace mediagen::storage {

// Runs on a blocking-pool thread before a link is issued. Answers 404 (ApiError::not_found)
// when `path` is not a file of one of the user's own orders, so other users' paths are not
// even confirmed to exist; may record the delivery.
using AuthorizePath = std::function<Result<void>(db::Db& db, UserId user, std::string_view path)>;

struct StorageOptions {
  ObjectStore& store;
  LinkSigner signer;
  const Clock& clock;
  std::string public_url;  // how clients reach this server, e.g. "https://media.example.com"
  std::chrono::seconds link_ttl{std::chrono::minutes(15)};
  AuthorizePath authorize_path;
  // Threads that read downloads from the store, piece by piece (no PostgreSQL connection).
  int read_threads = 2;
  // When set (MEDIAGEN_STORAGE_REDIRECT=1, S3 only), a valid link answers 302 to this URL
  // (a presigned one valid `seconds` from `now`) instead of streaming the file. No I/O.
  std::function<std::string(std::string_view key, bool download, std::int64_t seconds, std::int64_t now)> redirect;
};

// Throws std::invalid_argument when authorize_path is empty.
// Links are built as {public_url}{router.api_prefix()}/storage/download?path=...&expires=...
// &download=0|1&signature=...
void register_routes(http::Router& router, db::BlockingPool& pool, StorageOptions options);

}  // namespace mediagen::storage
