#pragma once
// The request and reply types domain handlers see; Beast stays inside src/http.
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <boost/asio/awaitable.hpp>

#include "mediagen/core/message.hpp"

namespace mediagen::http {

enum class Method : std::uint8_t { get, head, post, put, patch, del, options, other };

std::string_view to_string(Method method);

class RequestView {
 public:
  virtual ~RequestView() = default;
  virtual Method method() const = 0;
  virtual std::string_view method_text() const = 0;
  virtual std::string_view target() const = 0;
  // Case-insensitive; the first value when repeated.
  virtual std::optional<std::string_view> header(std::string_view name) const = 0;
  // How many times the header field appears (a header sent twice with different values is
  // ambiguous where one value is expected).
  virtual std::size_t header_count(std::string_view name) const { return header(name) ? 1 : 0; }
  // Every value of a header field, in the order the lines came.
  virtual std::vector<std::string_view> header_values(std::string_view name) const {
    if (auto v = header(name)) return {*v};
    return {};
  }
  // The body once the pipeline has read it (empty before).
  virtual std::string_view body() const = 0;
};

// The lines of a repeated header as one comma-separated value, in order (RFC 9110 5.3): e.g.
// X-Forwarded-For sent by the client and again by a proxy that adds a line of its own.
inline std::string join_header_lines(const std::vector<std::string_view>& lines) {
  std::string out;
  for (std::size_t i = 0; i < lines.size(); ++i) {
    if (i) out += ',';
    out += lines[i];
  }
  return out;
}

using Headers = std::vector<std::pair<std::string, std::string>>;

// A body too large to hold whole (a file): the server writes it piece by piece as the client
// takes it, and never asks for it on a HEAD request.
class BodySource {
 public:
  virtual ~BodySource() = default;
  // Exactly how many bytes the pieces add up to: the Content-Length. Unused when !sized().
  virtual std::uint64_t size() const = 0;
  // False for a body whose length is not known when the head goes out (audio made while it is
  // sent): the server sends it with chunked transfer coding, and next() returns an empty piece
  // once the body is complete.
  virtual bool sized() const { return true; }
  // For an unsized body: the longest the whole transfer may take, waits for pieces included;
  // the server closes the connection past it.
  virtual std::int64_t max_seconds() const { return 0; }
  // The next piece, never empty while bytes are left; nullopt when they cannot be had (the
  // source reports why). The head has gone out by then, so the server closes the connection
  // (an unsized body then ends without its last chunk: the client sees a broken transfer).
  virtual boost::asio::awaitable<std::optional<std::string>> next() = 0;
};

// What a handler returns on success: the envelope's data (already JSON) and its message.
struct Reply {
  int status = 200;
  Message message{"ok"};
  std::string data_json = "null";
  Headers headers;
  bool bare = false;  // data_json is the whole body, without the envelope (probes, files)
  // The type of a bare body that is not JSON (a file); static text, as Response keeps a view.
  std::string_view content_type;
  // With bare: the body comes from here instead of data_json.
  std::unique_ptr<BodySource> body_source;
};

// What the server writes. Pipelines build it from a Reply or an ApiError.
struct Response {
  int status = 200;
  Headers headers;
  std::string body;
  std::unique_ptr<BodySource> body_source;  // when set, the body instead of `body`
  std::string_view content_type = "application/json; charset=utf-8";
  bool close = false;
};

}  // namespace mediagen::http
