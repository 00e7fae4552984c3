// POST /v1/audio/speech's body (src/compat/speech_request.hpp) and the OpenAI error shape of its
// refusals (src/compat/openai_errors.hpp). Input: any bytes, parsed as JSON. Properties:
//   - nothing crashes or leaks, whatever the bytes;
//   - a refusal is a 422 naming one field, rendered as a 400 whose body is OpenAI's shape;
//   - an accepted request has a model and input within their ceilings and a speed in 0.25..4.
#include <string>

#include <nlohmann/json.hpp>

#include "compat/openai_errors.hpp"
#include "compat/speech_request.hpp"
#include "fuzz_support.hpp"
#include "mediagen/core/utf8.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace mediagen;
  const auto body = nlohmann::json::parse(fuzz::as_text(data, size), nullptr, false);
  if (body.is_discarded()) return 0;
  const auto read = compat::read_speech_request(body);
  if (!read) {
    FUZZ_CHECK(read.error().status == 422);
    FUZZ_CHECK(read.error().fields.size() == 1);
    const auto rendered = compat::openai_error(read.error(), Locale::en);
    FUZZ_CHECK(rendered.status == 400);
    const auto shape = nlohmann::json::parse(rendered.body, nullptr, false);
    FUZZ_CHECK(shape.is_object() && shape.size() == 1 && shape["error"].size() == 4);
    return 0;
  }
  FUZZ_CHECK(!read->model.empty() && count_code_points(read->model) <= compat::kMaxNameChars);
  FUZZ_CHECK(!read->input.empty() && count_code_points(read->input) <= compat::kMaxInputChars);
  if (read->speed) FUZZ_CHECK(*read->speed >= compat::kMinSpeed && *read->speed <= compat::kMaxSpeed);
  return 0;
}
