#include "wire.hpp"

#include <boost/beast/http/status.hpp>

#include "mediagen/core/ascii.hpp"

namespace mediagen::http::wire {

Method to_method(bhttp::verb v) {
  switch (v) {
    case bhttp::verb::get: return Method::get;
    case bhttp::verb::head: return Method::head;
    case bhttp::verb::post: return Method::post;
    case bhttp::verb::put: return Method::put;
    case bhttp::verb::patch: return Method::patch;
    case bhttp::verb::delete_: return Method::del;
    case bhttp::verb::options: return Method::options;
    default: return Method::other;
  }
}

bool framing_ok(const Parser& parser) {
  const auto& h = parser.get();
  auto te = h.find(bhttp::field::transfer_encoding);
  if (te == h.end()) return true;
  if (h.find(bhttp::field::content_length) != h.end()) return false;
  return iequals_ascii(te->value(), "chunked");
}

std::string serialize_head(const Response& r, unsigned version, bool keep_alive, std::size_t content_length) {
  return serialize_head(r, version, keep_alive, std::optional<std::size_t>(content_length));
}

std::string serialize_chunked_head(const Response& r, bool keep_alive) {
  return serialize_head(r, 11, keep_alive, std::nullopt);
}

std::string serialize_head(const Response& r, unsigned version, bool keep_alive, std::optional<std::size_t> content_length) {
  std::string out;
  out.reserve(160 + 48 * r.headers.size());
  out += version == 10 ? "HTTP/1.0 " : "HTTP/1.1 ";
  out += std::to_string(r.status);
  out += ' ';
  out += bhttp::obsolete_reason(static_cast<bhttp::status>(r.status));
  out += "\r\n";
  // A 304 describes the representation the client already holds: a Content-Length here would
  // have to be that one's (RFC 9110 8.6), so it carries neither length nor type.
  if (r.status != 304) {
    out += "Content-Type: ";
    out += r.content_type;
    if (content_length) {
      out += "\r\nContent-Length: ";
      out += std::to_string(*content_length);
      out += "\r\n";
    } else if (version != 10) {
      out += "\r\nTransfer-Encoding: chunked\r\n";
    } else {
      out += "\r\n";  // HTTP/1.0: the close ends the body
    }
  }
  for (const auto& [k, v] : r.headers) {
    // Values are ours, but a line break would split the response: never emit one.
    if (k.find_first_of("\r\n:") != std::string::npos || v.find_first_of("\r\n") != std::string::npos) continue;
    out += k;
    out += ": ";
    out += v;
    out += "\r\n";
  }
  if (!keep_alive) {
    out += "Connection: close\r\n";
  } else if (version == 10) {
    out += "Connection: keep-alive\r\n";
  }
  out += "\r\n";
  return out;
}

}  // namespace mediagen::http::wire
