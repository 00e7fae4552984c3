// An item's text: the {"text"} body of POST /orders/{order}/items/{item}/retry and /regenerate
// (read_item_text, src/orders/request/order_request.cpp), what the service makes of it before any SQL
// (the path ids as issued, the replacement text cleaned and measured against the chunk's
// limits), and the answer of GET /orders/{order}/items/{item}/text (item_text_json) for a stored
// text. Input: line 1 the {order} path segment, line 2 {item}, line 3 1 byte of capacity unit
// and 2 of capacity, the rest the body as the body stage reads it (and, as raw bytes, a stored
// text). Properties:
//   - nothing crashes, leaks or throws;
//   - every refusal has the spec's shape in both locales (422 on body or text; 404 for ids);
//   - an accepted text is valid UTF-8 of 1..50000 code points with something to speak, and its
//     revised fields keep the chunk's creation values and measure the cleaned text;
//   - the text answer is JSON whatever the stored bytes, and gives back valid UTF-8 unchanged.
#include <string>

#include <nlohmann/json.hpp>

#include "fuzz_error_shape.hpp"
#include "fuzz_support.hpp"
#include "http/stages/json_body.hpp"
#include "mediagen/core/utf8.hpp"
#include "mediagen/core/uuid.hpp"
#include "mediagen/orders/text.hpp"
#include "mediagen/orders/order.hpp"
#include "mediagen/orders/reads.hpp"
#include "mediagen/orders/request.hpp"

namespace {

using namespace mediagen;
using namespace mediagen::orders;

ChunkerOptions chunker_of(fuzz::Bytes& b) {
  constexpr CapacityUnit kUnits[] = {CapacityUnit::chars, CapacityUnit::utf8_bytes};
  ChunkerOptions o;
  o.unit = kUnits[b.u8() % 2];
  o.capacity = 1 + b.u16() % 6000;
  return o;
}

void check_stored_text(std::string_view stored, const ChunkTextFields& fields) {
  const std::string answer = item_text_json(ItemText{std::string(stored), fields});
  const auto json = nlohmann::json::parse(answer, nullptr, false);
  FUZZ_CHECK(json.is_object() && json["text"].is_string());
  if (is_valid_utf8(stored)) FUZZ_CHECK(json["text"].get_ref<const std::string&>() == stored);
  FUZZ_CHECK(json["raw_length"] == fields.raw_length && json["length"] == fields.length);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  fuzz::Lines lines{fuzz::as_text(data, size)};
  std::string_view order_segment, item_segment, options;
  if (!lines.next(order_segment) || !lines.next(item_segment) || !lines.next(options)) return 0;
  const std::string_view body_text = lines.rest.data() ? lines.rest : std::string_view{};
  fuzz::Bytes bytes{options};
  const ChunkerOptions chunker = chunker_of(bytes);

  // The chunk as planned at creation: its first chunk of the body's bytes read as text.
  ChunkTextFields current;
  const ChunkPlan plan = plan_chunks(body_text, chunker);
  if (!plan.chunks.empty()) current = text_fields(plan.chunks.front(), chunker);
  else current = text_fields(ChunkText{}, chunker);
  check_stored_text(body_text, current);

  // The handler's ids: as issued, in capitals too; anything else is the 404 of the service.
  const std::string order_id = lowercase_id(order_segment), item_id = lowercase_id(item_segment);
  if (!is_uuid(order_id) || !is_uuid(item_id)) fuzz::check_error_shape(ApiError::not_found());
  else FUZZ_CHECK(order_id.size() == 36 && item_id.size() == 36);

  auto body = http::stages::parse_json_body(body_text, "application/json");
  if (!body) {
    fuzz::check_error_shape(body.error());
    return 0;
  }
  auto text = read_item_text(*body, kMaxItemTextChars);
  if (!text) {
    FUZZ_CHECK(text.error().status == 422);
    fuzz::check_error_shape(text.error());
    return 0;
  }
  if (!*text) return 0;  // the previous text is retried
  const std::string& t = **text;
  FUZZ_CHECK(!t.empty() && is_valid_utf8(t) && count_code_points(t) <= kMaxItemTextChars);
  const std::string cleaned(trim_spaces(strip_brackets(t)));
  FUZZ_CHECK(!cleaned.empty() && is_valid_utf8(cleaned));
  const ChunkTextFields revised = revise_text_fields(current, cleaned);
  FUZZ_CHECK(revised.length == count_code_points(cleaned) && revised.billable_length == revised.length);
  FUZZ_CHECK(revised.original_text_length == current.original_text_length &&
             revised.free_length == current.free_length && revised.max_raw_length == current.max_raw_length &&
             revised.max_billable_length == current.max_billable_length);
  FUZZ_CHECK(revised.surcharge_applies == (revised.billable_length > revised.free_length));
  if (chunker.unit == CapacityUnit::utf8_bytes) FUZZ_CHECK(revised.raw_length == cleaned.size());
  else FUZZ_CHECK(revised.raw_length == revised.length);
  check_stored_text(cleaned, revised);
  return 0;
}
