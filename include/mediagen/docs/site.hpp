#pragma once
// The public documentation the server serves outside the API prefix (CONTRACTS: "Public
// documentation"), built once at start from the embedded files:
//   /docs                  an HTML page rendering openapi.yaml with the bundled viewer
//   /docs/ru               the same for openapi.ru.yaml (when that file was embedded)
//   /docs/openapi.yaml, /docs/openapi.ru.yaml, /docs/asyncapi.yaml   the descriptions, raw
//   /docs/redoc.standalone.js                                         the viewer (when bundled)
// Built without the viewer, the pages say so and link the raw descriptions instead.
#include <deque>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "mediagen/docs/embedded.hpp"

namespace mediagen::docs {

inline constexpr std::string_view kViewerFile = "redoc.standalone.js";

struct Document {
  std::string path;               // e.g. "/docs/openapi.yaml"
  std::string_view content_type;  // with its charset
  std::string_view bytes;         // the embedded file's or a page the Site owns
  std::string etag;               // strong, from the bytes' SHA-256
};

// What a documentation page shows: the description it renders, in which language, and which
// of the other files exist to be linked.
struct PageOptions {
  std::string_view spec_file;  // "openapi.yaml" or "openapi.ru.yaml"
  std::string_view lang;       // "en" or "ru"
  bool viewer = false;         // the viewer bundle was embedded
  bool russian = false;        // openapi.ru.yaml was embedded
  bool asyncapi = false;       // asyncapi.yaml was embedded
};

std::string render_page(const PageOptions& options);

class Site {
 public:
  explicit Site(std::span<const EmbeddedFile> files);
  Site(const Site&) = delete;  // documents view into pages_
  Site& operator=(const Site&) = delete;

  const std::vector<Document>& documents() const { return documents_; }
  const Document* find(std::string_view path) const;
  bool has_viewer() const { return viewer_; }

 private:
  void add(std::string path, std::string_view content_type, std::string_view bytes);

  std::deque<std::string> pages_;  // stable addresses
  std::vector<Document> documents_;
  bool viewer_ = false;
};

}  // namespace mediagen::docs
