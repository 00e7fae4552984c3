#include "mediagen/storage/open_store.hpp"

#include "mediagen/storage/local_store.hpp"

namespace mediagen::storage {

OpenedStore open_store(const StoreLocation& location) {
  const std::string url = location.url.empty() ? "file://" + location.dir : location.url;
  const std::string setting = location.url.empty() ? "MEDIAGEN_STORAGE_DIR " + location.dir
                                                   : "MEDIAGEN_STORAGE_URL " + location.url;
  auto parsed = parse_storage_url(url);
  if (auto* problem = std::get_if<std::string>(&parsed)) return {.error = setting + ": " + *problem};
  auto& where = std::get<StorageUrl>(parsed);
  if (where.kind == StorageUrl::Kind::file) {
    auto local = LocalStore::open(where.path);
    if (!local) return {.error = setting + ": " + local.error().detail};
    return {.store = std::make_unique<LocalStore>(std::move(*local))};
  }
  S3Options options{.endpoint = location.aws_endpoint_url,
                    .bucket = where.bucket,
                    .prefix = where.prefix,
                    .region = location.aws_region.empty() ? "us-east-1" : location.aws_region,
                    .access_key = location.aws_access_key_id,
                    .secret_key = location.aws_secret_access_key};
  auto opened = S3Store::open(std::move(options));
  if (auto* problem = std::get_if<std::string>(&opened)) return {.error = setting + ": " + *problem};
  auto store = std::move(std::get<std::unique_ptr<S3Store>>(opened));
  S3Store* s3 = store.get();
  return {.store = std::move(store), .s3 = s3};
}

}  // namespace mediagen::storage
