#include "mediagen/docs/site.hpp"

#include <span>

#include "mediagen/core/crypto.hpp"

namespace mediagen::docs {
namespace {

constexpr std::string_view kHtml = "text/html; charset=utf-8";
constexpr std::string_view kYaml = "application/yaml; charset=utf-8";
constexpr std::string_view kJavaScript = "text/javascript; charset=utf-8";

bool ends_with(std::string_view text, std::string_view suffix) {
  return text.size() >= suffix.size() && text.substr(text.size() - suffix.size()) == suffix;
}

std::string etag_of(std::string_view bytes) {
  const crypto::Sha256Digest d = crypto::sha256(bytes);
  // 128 bits of the digest tell versions apart as well as all 256 would.
  return '"' + crypto::to_hex(std::span<const std::uint8_t>(d.data(), 16)) + '"';
}

struct Texts {
  std::string_view title, other_language, other_page, realtime, no_viewer;
};

constexpr Texts kEnglish{
    "mediagen API",
    "Русская версия",
    "/docs/ru",
    "the realtime channels",
    "The documentation viewer was not bundled into this build (npm was not available when it was "
    "built), so the descriptions are not rendered here. Read them raw:",
};
constexpr Texts kRussian{
    "API mediagen",
    "English version",
    "/docs",
    "каналы реального времени",
    "Просмотрщик документации не вошёл в эту сборку (при сборке не было npm), поэтому описания здесь "
    "не отображаются. Их можно прочитать как есть:",
};

void append_links(std::string& out, const PageOptions& o, const Texts& t) {
  out += "<a href=\"/docs/openapi.yaml\">openapi.yaml</a>\n";
  if (o.russian) out += "<a href=\"/docs/openapi.ru.yaml\">openapi.ru.yaml</a>\n";
  if (o.asyncapi) {
    out += "<a href=\"/docs/asyncapi.yaml\">asyncapi.yaml</a> (";
    out += t.realtime;
    out += ")\n";
  }
}

}  // namespace

std::string render_page(const PageOptions& o) {
  const Texts& t = o.lang == "ru" ? kRussian : kEnglish;
  std::string out;
  out.reserve(2048);
  out += "<!DOCTYPE html>\n<html lang=\"";
  out += o.lang;
  out += "\">\n<head>\n<meta charset=\"utf-8\">\n<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n<title>";
  out += t.title;
  // The viewer's theme names its fonts; none is fetched, so the system's sans-serif stands in.
  out += "</title>\n<style>body{margin:0;font-family:sans-serif}"
         "nav{padding:8px 16px;border-bottom:1px solid #ddd;font-size:14px}nav a{margin-right:16px}"
         "main{padding:16px}</style>\n</head>\n<body>\n<nav id=\"docs-links\">\n";
  append_links(out, o, t);
  if (o.russian) {
    out += "<a id=\"docs-other-language\" href=\"";
    out += t.other_page;
    out += "\">";
    out += t.other_language;
    out += "</a>\n";
  }
  out += "</nav>\n";
  if (!o.viewer) {
    out += "<main id=\"docs-no-viewer\">\n<h1>";
    out += t.title;
    out += "</h1>\n<p>";
    out += t.no_viewer;
    out += "</p>\n<p>\n";
    append_links(out, o, t);
    out += "</p>\n</main>\n</body>\n</html>\n";
    return out;
  }
  out += "<div id=\"redoc\"></div>\n<script src=\"/docs/";
  out += kViewerFile;
  out += "\"></script>\n<script>\nRedoc.init('/docs/";
  out += o.spec_file;
  out += "', {}, document.getElementById('redoc'));\n</script>\n</body>\n</html>\n";
  return out;
}

Site::Site(std::span<const EmbeddedFile> files) {
  const EmbeddedFile* english = nullptr;
  const EmbeddedFile* russian = nullptr;
  bool asyncapi = false;
  for (const EmbeddedFile& f : files) {
    if (f.name == kViewerFile) viewer_ = true;
    if (f.name == "openapi.yaml") english = &f;
    if (f.name == "openapi.ru.yaml") russian = &f;
    if (f.name == "asyncapi.yaml") asyncapi = true;
  }
  PageOptions page{.spec_file = "openapi.yaml", .lang = "en", .viewer = viewer_, .russian = russian != nullptr,
                   .asyncapi = asyncapi};
  if (english) add("/docs", kHtml, pages_.emplace_back(render_page(page)));
  if (russian) {
    page.spec_file = "openapi.ru.yaml";
    page.lang = "ru";
    add("/docs/ru", kHtml, pages_.emplace_back(render_page(page)));
  }
  for (const EmbeddedFile& f : files) {
    if (ends_with(f.name, ".yaml")) add("/docs/" + std::string(f.name), kYaml, f.bytes);
    if (f.name == kViewerFile) add("/docs/" + std::string(f.name), kJavaScript, f.bytes);
  }
}

void Site::add(std::string path, std::string_view content_type, std::string_view bytes) {
  documents_.push_back({std::move(path), content_type, bytes, etag_of(bytes)});
}

const Document* Site::find(std::string_view path) const {
  for (const Document& d : documents_) {
    if (d.path == path) return &d;
  }
  return nullptr;
}

}  // namespace mediagen::docs
