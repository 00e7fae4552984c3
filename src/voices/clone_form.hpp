#pragma once
// Reading a clone create request: `name` and the `files[]` samples of a multipart form, or a
// JSON body (which cannot carry files, so it gets the refusal of a form without files).
//   name: required, a string of 1..100 characters of UTF-8 text without control characters
//         (surrounding white space trimmed); else 422 with errors.name.
//   files[]: none, or one with no bytes: 422 source_file_required; more than kMaxCloneSamples:
//         422 with errors.files; one that is not audio by content (libmagic, never the name or
//         Content-Type): 422 source_file_unsupported. Decoding waits for the clone job.
#include <cstdint>
#include <string>
#include <vector>

#include <nlohmann/json_fwd.hpp>

#include "mediagen/core/api_error.hpp"
#include "mediagen/http/multipart.hpp"

namespace mediagen::voices {

struct CloneForm {
  std::string name;
  std::vector<const http::MultipartPart*> files;  // point into the form
  std::int64_t bytes = 0;
};

// `form` and `json` may both be null (no body).
Result<CloneForm> read_clone_form(const http::MultipartForm* form, const nlohmann::json* json);

}  // namespace mediagen::voices
