#include "s3_xml.hpp"

#include <expat.h>

#include <memory>

namespace mediagen::storage::s3 {
namespace {

// Deeper than any answer we read, and more entries or text than a page holds: refused.
constexpr std::size_t kMaxDepth = 8;
constexpr std::size_t kMaxEntries = 20000;
constexpr std::size_t kMaxTextBytes = 8192;

// Each element's text by its path from the root ("ListBucketResult/Contents/Key"), in order.
struct Entry {
  std::string path;
  std::string text;
};

struct Reader {
  XML_Parser parser = nullptr;
  std::vector<std::string> stack;
  std::string text;
  std::vector<Entry> entries;
  std::string root;
  bool refused = false;

  void refuse() {
    refused = true;
    XML_StopParser(parser, XML_FALSE);
  }
};

std::string path_of(const std::vector<std::string>& stack) {
  std::string out;
  for (const auto& name : stack) {
    if (!out.empty()) out += '/';
    out += name;
  }
  return out;
}

// "ns:Name" or a namespace URI joined by expat: the local name only.
std::string local_name(const XML_Char* name) {
  std::string_view n(name);
  if (const auto colon = n.rfind(':'); colon != std::string_view::npos) n.remove_prefix(colon + 1);
  return std::string(n);
}

void on_start(void* user, const XML_Char* name, const XML_Char**) {
  auto& r = *static_cast<Reader*>(user);
  if (r.refused) return;
  if (r.stack.size() >= kMaxDepth) return r.refuse();
  if (r.stack.empty()) r.root = local_name(name);
  r.stack.push_back(local_name(name));
  r.text.clear();
}

void on_end(void* user, const XML_Char*) {
  auto& r = *static_cast<Reader*>(user);
  if (r.refused || r.stack.empty()) return;
  if (r.entries.size() >= kMaxEntries) return r.refuse();
  r.entries.push_back({path_of(r.stack), std::move(r.text)});
  r.text.clear();
  r.stack.pop_back();
}

void on_text(void* user, const XML_Char* s, int len) {
  auto& r = *static_cast<Reader*>(user);
  if (r.refused) return;
  if (r.text.size() + static_cast<std::size_t>(len) > kMaxTextBytes) return r.refuse();
  r.text.append(s, static_cast<std::size_t>(len));
}

// No answer of S3 has a DTD: one is refused before any entity it declares can expand.
void on_doctype(void* user, const XML_Char*, const XML_Char*, const XML_Char*, int) {
  static_cast<Reader*>(user)->refuse();
}

struct ParserDeleter {
  void operator()(XML_ParserStruct* p) const { XML_ParserFree(p); }
};

std::optional<Reader> read_xml(std::string_view xml) {
  if (xml.empty() || xml.size() > kMaxXmlBytes) return std::nullopt;
  std::unique_ptr<XML_ParserStruct, ParserDeleter> parser(XML_ParserCreate("UTF-8"));
  if (!parser) return std::nullopt;
  Reader r;
  r.parser = parser.get();
  XML_SetUserData(parser.get(), &r);
  XML_SetElementHandler(parser.get(), on_start, on_end);
  XML_SetCharacterDataHandler(parser.get(), on_text);
  XML_SetStartDoctypeDeclHandler(parser.get(), on_doctype);
  const auto status = XML_Parse(parser.get(), xml.data(), static_cast<int>(xml.size()), XML_TRUE);
  if (status != XML_STATUS_OK || r.refused) return std::nullopt;
  r.parser = nullptr;
  return r;
}

std::optional<std::string> first(const Reader& r, std::string_view path) {
  for (const auto& e : r.entries) {
    if (e.path == path) return e.text;
  }
  return std::nullopt;
}

}  // namespace

std::optional<ErrorBody> parse_error(std::string_view xml) {
  auto r = read_xml(xml);
  if (!r || r->root != "Error") return std::nullopt;
  return ErrorBody{first(*r, "Error/Code").value_or(""), first(*r, "Error/Message").value_or("")};
}

std::optional<std::string> parse_upload_id(std::string_view xml) {
  auto r = read_xml(xml);
  if (!r || r->root != "InitiateMultipartUploadResult") return std::nullopt;
  auto id = first(*r, "InitiateMultipartUploadResult/UploadId");
  if (!id || id->empty()) return std::nullopt;
  return id;
}

std::optional<std::string> parse_complete(std::string_view xml) {
  auto r = read_xml(xml);
  if (!r || r->root != "CompleteMultipartUploadResult") return std::nullopt;
  return first(*r, "CompleteMultipartUploadResult/ETag").value_or("");
}

std::optional<ListPage> parse_list(std::string_view xml) {
  auto r = read_xml(xml);
  if (!r || r->root != "ListBucketResult") return std::nullopt;
  ListPage page;
  for (const auto& e : r->entries) {
    if (e.path == "ListBucketResult/Contents/Key") page.keys.push_back(e.text);
    else if (e.path == "ListBucketResult/IsTruncated") page.truncated = e.text == "true";
    else if (e.path == "ListBucketResult/NextContinuationToken") page.next_token = e.text;
  }
  // A truncated page without a token could only be listed again from the start: refused.
  if (page.truncated && page.next_token.empty()) return std::nullopt;
  return page;
}

}  // namespace mediagen::storage::s3
