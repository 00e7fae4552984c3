#include "preview_codec.hpp"

#include <zlib.h>

#include <array>
#include <algorithm>
#include <stdexcept>

namespace mediagen::orders {

namespace {

// zlib counts in unsigned int: feed it at most this much at a time.
constexpr std::size_t kStep = std::size_t{1} << 30;

class Stream {
 public:
  explicit Stream(bool deflating) : deflating_(deflating) {
    const int rc = deflating ? deflateInit(&z_, Z_BEST_SPEED) : inflateInit(&z_);
    if (rc != Z_OK) throw std::runtime_error("zlib could not start");
  }
  ~Stream() { deflating_ ? deflateEnd(&z_) : inflateEnd(&z_); }
  Stream(const Stream&) = delete;
  Stream& operator=(const Stream&) = delete;
  z_stream* operator->() { return &z_; }
  z_stream* get() { return &z_; }

 private:
  z_stream z_{};
  bool deflating_;
};

}  // namespace

std::string pack_preview(std::string_view document) {
  Stream z(/*deflating=*/true);
  std::string out(kPackedPreviewTag);
  std::array<char, 64 * 1024> buffer;
  z->next_in = reinterpret_cast<Bytef*>(const_cast<char*>(document.data()));
  std::size_t left = document.size();
  int rc = Z_OK;
  while (rc != Z_STREAM_END) {
    const std::size_t take = std::min(left, kStep);
    z->avail_in = static_cast<uInt>(take);
    left -= take;
    do {
      z->next_out = reinterpret_cast<Bytef*>(buffer.data());
      z->avail_out = static_cast<uInt>(buffer.size());
      rc = deflate(z.get(), left == 0 ? Z_FINISH : Z_NO_FLUSH);
      if (rc == Z_STREAM_ERROR) throw std::runtime_error("zlib could not deflate a preview");
      out.append(buffer.data(), buffer.size() - z->avail_out);
    } while (z->avail_out == 0 && rc != Z_STREAM_END);
  }
  return out;
}

std::optional<std::string> unpack_preview(std::string_view stored, std::size_t max_bytes) {
  if (stored.starts_with('{')) {
    if (stored.size() > max_bytes) return std::nullopt;
    return std::string(stored);
  }
  if (!stored.starts_with(kPackedPreviewTag)) return std::nullopt;
  stored.remove_prefix(kPackedPreviewTag.size());
  Stream z(/*deflating=*/false);
  std::string out;
  std::array<char, 64 * 1024> buffer;
  z->next_in = reinterpret_cast<Bytef*>(const_cast<char*>(stored.data()));
  std::size_t left = stored.size();
  for (;;) {
    if (z->avail_in == 0 && left != 0) {
      const std::size_t take = std::min(left, kStep);
      z->avail_in = static_cast<uInt>(take);
      left -= take;
    }
    z->next_out = reinterpret_cast<Bytef*>(buffer.data());
    z->avail_out = static_cast<uInt>(buffer.size());
    const int rc = inflate(z.get(), Z_NO_FLUSH);
    const std::size_t produced = buffer.size() - z->avail_out;
    if (out.size() + produced > max_bytes) return std::nullopt;
    out.append(buffer.data(), produced);
    if (rc == Z_STREAM_END) break;
    // Out of input before the end, or bytes zlib cannot read: a cut or corrupt value.
    if (rc != Z_OK && rc != Z_BUF_ERROR) return std::nullopt;
    if (produced == 0 && z->avail_in == 0 && left == 0) return std::nullopt;
  }
  // Whatever follows the end of the stream was not written by pack_preview.
  if (z->avail_in != 0 || left != 0) return std::nullopt;
  return out;
}

}  // namespace mediagen::orders
