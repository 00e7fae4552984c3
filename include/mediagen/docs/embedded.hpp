#pragma once
// The files compiled into the binary for GET /docs (cmake/EmbedDocs.cmake): openapi/*.yaml as
// they were at build time and, when npm could install it, the viewer's bundle.
#include <span>
#include <string_view>

namespace mediagen::docs {

struct EmbeddedFile {
  std::string_view name;   // the file name alone, e.g. "openapi.yaml"
  std::string_view bytes;  // static: lives as long as the process
};

std::span<const EmbeddedFile> embedded_files();

}  // namespace mediagen::docs
