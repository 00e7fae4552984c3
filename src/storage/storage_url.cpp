// MEDIAGEN_STORAGE_URL read into its parts (a parser of its own: fuzzed by fuzz_s3_xml).
#include "mediagen/storage/open_store.hpp"

namespace mediagen::storage {

std::variant<StorageUrl, std::string> parse_storage_url(std::string_view url) {
  constexpr std::string_view kFile = "file://";
  constexpr std::string_view kS3 = "s3://";
  StorageUrl out;
  if (url.starts_with(kFile)) {
    out.path = std::string(url.substr(kFile.size()));
    if (out.path.empty()) return std::string("expected file:///path, got no path");
    if (out.path.find_first_of("?#") != std::string::npos) return std::string("a file URL takes no query or fragment");
    return out;
  }
  if (!url.starts_with(kS3)) return std::string("expected file:///path or s3://BUCKET[/PREFIX]");
  std::string_view rest = url.substr(kS3.size());
  if (rest.find_first_of("?#@:") != std::string_view::npos) {
    return std::string("expected s3://BUCKET[/PREFIX], with no user, port, query or fragment");
  }
  const auto slash = rest.find('/');
  out.kind = StorageUrl::Kind::s3;
  out.bucket = std::string(rest.substr(0, slash));
  if (slash != std::string_view::npos) {
    std::string_view prefix = rest.substr(slash + 1);
    while (!prefix.empty() && prefix.back() == '/') prefix.remove_suffix(1);
    if (!prefix.empty() && !is_valid_key(prefix)) {
      return std::string("the prefix must be '/'-separated segments of A-Z, a-z, 0-9, '.', '_', '-'");
    }
    out.prefix = std::string(prefix);
  }
  if (out.bucket.empty()) return std::string("expected s3://BUCKET[/PREFIX], got no bucket");
  return out;
}

}  // namespace mediagen::storage
