// A voice clone's create request and profile (src/voices/clone_form.hpp,
// include/mediagen/engines/voice_profile.hpp). Input: the first byte chooses the reading - a
// multipart body with boundary "b", or JSON text read as both a create body and a stored profile.
// Properties:
//   - nothing crashes or leaks, whatever the bytes;
//   - an accepted form has a name of 1..100 code points of valid UTF-8 without controls or edge
//     spaces, 1..10 files none empty, and bytes equal to their sum;
//   - a refusal is 422 (validation on name or files, or source_file_required / _unsupported);
//   - a JSON body is never accepted (it cannot carry files);
//   - a profile read back is within the engine's ranges and survives a round trip.
#include <nlohmann/json.hpp>

#include "fuzz_support.hpp"
#include "mediagen/core/utf8.hpp"
#include "mediagen/engines/voice.hpp"
#include "mediagen/http/multipart.hpp"
#include "voices/clone_form.hpp"

namespace {

using namespace mediagen;

void check(const Result<voices::CloneForm>& read) {
  if (!read) {
    const auto& e = read.error();
    FUZZ_CHECK(e.status == 422);
    FUZZ_CHECK(e.reason == Reason::source_file_required || e.reason == Reason::source_file_unsupported ||
               (e.fields.size() == 1 && (e.fields[0].field == "name" || e.fields[0].field == "files")));
    return;
  }
  const auto& f = *read;
  FUZZ_CHECK(is_valid_utf8(f.name));
  const auto n = count_code_points(f.name);
  FUZZ_CHECK(n >= 1 && n <= 100);
  FUZZ_CHECK(f.name.front() != ' ' && f.name.back() != ' ');
  FUZZ_CHECK(!f.files.empty() && f.files.size() <= 10);
  std::int64_t bytes = 0;
  // A files[] part is a sample with or without a filename (as input_files[] is for orders).
  for (const auto* p : f.files) {
    FUZZ_CHECK(p->size > 0 && !p->data.empty());
    bytes += static_cast<std::int64_t>(p->data.size());
  }
  FUZZ_CHECK(bytes == f.bytes);
}

void profile(const nlohmann::json& j) {
  const auto p = engines::voice_profile_from_json(j);
  if (!p) return;
  FUZZ_CHECK(!p->espeak_voice.empty());
  FUZZ_CHECK(p->pitch >= 0 && p->pitch <= 100 && p->pitch_range >= 0 && p->pitch_range <= 100);
  FUZZ_CHECK(p->rate_wpm >= 80 && p->rate_wpm <= 450);
  FUZZ_CHECK(engines::voice_profile_from_json(engines::voice_profile_to_json(*p)) == p);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  std::string_view input = fuzz::as_text(data, size);
  if (input.empty()) return 0;
  const char mode = input.front();
  input.remove_prefix(1);
  if (mode & 1) {
    auto outcome = http::parse_multipart(input, "b", {});
    if (!outcome.error) check(voices::read_clone_form(&outcome.form, nullptr));
    return 0;
  }
  const auto j = nlohmann::json::parse(input, nullptr, false);
  if (j.is_discarded()) return 0;
  const auto read = voices::read_clone_form(nullptr, &j);
  FUZZ_CHECK(!read);
  check(read);
  profile(j);
  if (j.is_object() && j.contains("profile")) profile(j["profile"]);
  return 0;
}
