#pragma once
// The HTTP/1.1 wire as the server reads and writes it, apart from the session's I/O: the parsed
// request seen through RequestView, the framing and folding checks, and the response head that
// Beast's serializer writes.
#include <boost/beast/http/parser.hpp>
#include <boost/beast/http/message.hpp>
#include <boost/beast/http/string_body.hpp>
#include <cstdint>
#include <memory_resource>
#include <optional>
#include <string>
#include <string_view>

#include "mediagen/http/message.hpp"

namespace mediagen::http::wire {

namespace bhttp = boost::beast::http;
using Parser = bhttp::request_parser<bhttp::string_body>;
// A response head's fields live in memory the caller lends (a connection's arena): the fields of
// every answer are otherwise an allocation and a free each.
using HeadFields = bhttp::basic_fields<std::pmr::polymorphic_allocator<char>>;
using ResponseHead = bhttp::response_header<HeadFields>;

Method to_method(bhttp::verb v);

class BeastRequest final : public RequestView {
 public:
  explicit BeastRequest(Parser& parser) : parser_(parser) {}
  Method method() const override { return to_method(parser_.get().method()); }
  std::string_view method_text() const override { return parser_.get().method_string(); }
  std::string_view target() const override { return parser_.get().target(); }
  std::optional<std::string_view> header(std::string_view name) const override {
    auto it = parser_.get().find(name);
    if (it == parser_.get().end()) return std::nullopt;
    return it->value();
  }
  std::size_t header_count(std::string_view name) const override { return parser_.get().count(name); }
  std::vector<std::string_view> header_values(std::string_view name) const override {
    std::vector<std::string_view> out;
    for (auto [it, end] = parser_.get().equal_range(name); it != end; ++it) out.push_back(it->value());
    return out;
  }
  std::string_view body() const override { return parser_.get().body(); }

 private:
  Parser& parser_;
};

// Request framing that could be read two ways is refused (request smuggling): a
// Transfer-Encoding other than plain "chunked", or one beside a Content-Length.
bool framing_ok(const Parser& parser);

// Obsolete line folding (a header line that starts with a space or a tab) is refused: Beast would
// join the lines, and a proxy in front may read them otherwise (RFC 9112 5.2). Fed the head's
// bytes in the order they arrive; true once a fold was seen.
class FoldDetector {
 public:
  bool feed(std::string_view bytes) {
    for (char c : bytes) {
      if (after_lf_ && (c == ' ' || c == '\t')) folded_ = true;
      after_lf_ = c == '\n';
    }
    return folded_;
  }

 private:
  bool after_lf_ = false;
  bool folded_ = false;
};

// The head of a response: the status line, Content-Type, then a Content-Length when given, else
// Transfer-Encoding: chunked (HTTP/1.1) or nothing (HTTP/1.0, whose body ends with the
// connection), the response's own headers in order, and Connection when it differs from the
// version's default. Beast's serializer writes it. A 304 carries neither type nor length.
// Lines that are not header_line_safe are left out: Beast 1.81 writes a field as given.
ResponseHead response_head(const Response& r, unsigned version, bool keep_alive,
                           std::optional<std::uint64_t> content_length,
                           std::pmr::memory_resource* memory = std::pmr::get_default_resource());

// A line that cannot split or bend the response: the name an RFC 9110 token, the value free of
// CR, LF and NUL.
bool header_line_safe(std::string_view name, std::string_view value);

}  // namespace mediagen::http::wire
