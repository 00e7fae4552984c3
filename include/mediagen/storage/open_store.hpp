#pragma once
// The object store chosen by MEDIAGEN_STORAGE_URL (CONTRACTS.md):
//   file:///path or file://relative/path   a folder on this machine (LocalStore)
//   s3://BUCKET[/PREFIX]                     an S3-compatible bucket (S3Store), with the standard
//                                            AWS_ENDPOINT_URL, AWS_REGION, AWS_ACCESS_KEY_ID and
//                                            AWS_SECRET_ACCESS_KEY
// Unset, the store is file:// + MEDIAGEN_STORAGE_DIR.
#include <memory>
#include <string>
#include <string_view>
#include <variant>

#include "mediagen/storage/object_store.hpp"
#include "mediagen/storage/s3_store.hpp"

namespace mediagen::storage {

struct StorageUrl {
  enum class Kind { file, s3 };
  Kind kind = Kind::file;
  std::string path;    // file: the folder
  std::string bucket;  // s3
  std::string prefix;  // s3: inside the bucket, without leading or trailing '/'
};

// The URL's parts, or what is wrong with it (for the startup error).
std::variant<StorageUrl, std::string> parse_storage_url(std::string_view url);

struct StoreLocation {
  std::string url;  // MEDIAGEN_STORAGE_URL; empty: file:// + dir
  std::string dir;  // MEDIAGEN_STORAGE_DIR
  std::string aws_endpoint_url;
  std::string aws_region;  // empty: us-east-1
  std::string aws_access_key_id;
  std::string aws_secret_access_key;
};

struct OpenedStore {
  std::unique_ptr<ObjectStore> store;  // null on an error
  S3Store* s3 = nullptr;               // the same store when it is an S3 one
  std::string error;                   // names the setting at fault
};

// Opens the store (the local one's folder is created); makes no request to S3.
OpenedStore open_store(const StoreLocation& location);

}  // namespace mediagen::storage
