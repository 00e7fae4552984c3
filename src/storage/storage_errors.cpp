#include "storage_errors.hpp"

#include <string>

namespace mediagen::storage {
namespace {

ApiError plain(int status, const char* key) {
  ApiError e;
  e.status = status;
  e.shape = ErrorShape::plain;
  e.message = Message{key};
  return e;
}

}  // namespace

ApiError link_invalid() { return plain(403, "errors.link_invalid"); }

ApiError link_expired() { return plain(410, "errors.link_expired"); }

ApiError range_not_satisfiable(std::uint64_t size) {
  ApiError e = plain(416, "errors.range_not_satisfiable");
  e.headers.emplace_back("Content-Range", "bytes */" + std::to_string(size));
  e.headers.emplace_back("Accept-Ranges", "bytes");
  return e;
}

}  // namespace mediagen::storage
