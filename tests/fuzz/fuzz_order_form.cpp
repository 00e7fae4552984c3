// POST /orders as multipart/form-data read as its JSON body (src/orders/routes/order_form.hpp). Input:
// a multipart body with the boundary "b". Properties:
//   - nothing crashes or leaks, whatever the bytes;
//   - a refusal is a 422 naming fields;
//   - on success the body is a JSON object that serialises (every text is UTF-8), task_data and
//     config_override are objects when present, and every file is one of the form's parts.
#include <string>

#include <nlohmann/json.hpp>

#include "fuzz_support.hpp"
#include "mediagen/http/multipart.hpp"
#include "orders/routes/order_form.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace mediagen;
  const auto outcome = http::parse_multipart(fuzz::as_text(data, size), "b", http::MultipartLimits{});
  if (outcome.error) return 0;
  const auto read = orders::read_order_form(outcome.form);
  if (!read) {
    FUZZ_CHECK(read.error().status == 422);
    FUZZ_CHECK(!read.error().fields.empty());
    return 0;
  }
  FUZZ_CHECK(read->body.is_object());
  (void)read->body.dump();  // throws on text that is not UTF-8
  for (const char* name : {"task_data", "config_override"}) {
    if (read->body.contains(name)) FUZZ_CHECK(read->body[name].is_object());
  }
  FUZZ_CHECK(read->files.size() <= outcome.form.parts.size());
  return 0;
}
