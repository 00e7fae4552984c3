// The text rules and the chunker (include/mediagen/orders/chunker.hpp states the properties).
// Input: two bytes of capacity (1 + little-endian value % 5000), one byte of flags (bit 0: unit
// utf8_bytes, bit 1: paragraph mode, bit 2: a lead chunk of 1 + 16 * (flags >> 3) units), then
// the text. Order creation and the preview only pass
// valid UTF-8 (JSON strings, then the text check stage), so the properties are checked on valid
// UTF-8; other input must merely not crash (the header promises that much). Properties:
//   - plan.cleaned is strip_brackets(text) trimmed; the chunks and separators rejoin to it;
//   - every chunk is valid UTF-8, non-empty, without whitespace at either end, its separator
//     whitespace only (the last one empty), its measures those of its text;
//   - every chunk fits the capacity in its unit, except the documented case: utf8_bytes smaller
//     than one code point, the chunk then being exactly that code point;
//   - paragraph mode numbers paragraphs from 0 and moves on exactly at a blank line; ordinary
//     mode has no paragraph index;
//   - the fresh /text fields of every such chunk are within their own limits;
//   - a lead chunk fits its smaller window (the same exception).
#include <string>
#include <string_view>

#include "fuzz_support.hpp"
#include "mediagen/core/utf8.hpp"
#include "mediagen/orders/text.hpp"

namespace {

using namespace mediagen::orders;
using mediagen::fuzz::Bytes;

constexpr std::size_t kMaxCapacity = 5000;

bool all_spaces(std::string_view text) { return trim_spaces(text).empty(); }

// Line breaks of a whitespace run as the chunker counts them: CR LF once.
int line_breaks(std::string_view run) {
  int breaks = 0;
  for (std::size_t i = 0; i < run.size();) {
    const CodePoint cp = decode_at(run, i);
    if (!(cp.value == U'\r' && i + 1 < run.size() && run[i + 1] == '\n')) breaks += line_break_weight(cp.value);
    i += cp.length;
  }
  return breaks;
}

void check_chunk(const ChunkText& chunk, const ChunkerOptions& options) {
  FUZZ_CHECK(!chunk.text.empty());
  FUZZ_CHECK(mediagen::is_valid_utf8(chunk.text));
  FUZZ_CHECK(trim_spaces(chunk.text) == chunk.text);
  FUZZ_CHECK(all_spaces(chunk.separator));
  FUZZ_CHECK(chunk.length == count_code_points(chunk.text));
  FUZZ_CHECK(chunk.billable_length == chunk.length);
  FUZZ_CHECK(chunk.raw_length == measure(chunk.text, options.unit));
  FUZZ_CHECK(chunk.pauses == count_pauses(chunk.text));
  FUZZ_CHECK(chunk.caps_ok == pauses_within_caps(chunk.pauses, chunk.length));
  const bool one_wide_code_point = options.unit == CapacityUnit::utf8_bytes && chunk.length == 1;
  FUZZ_CHECK(chunk.raw_length <= options.capacity || one_wide_code_point);
  if (chunk.raw_length <= options.capacity) FUZZ_CHECK(within_limits(text_fields(chunk, options)));
}

void check_plan(std::string_view text, const ChunkPlan& plan, const ChunkerOptions& options) {
  FUZZ_CHECK(plan.cleaned == trim_spaces(strip_brackets(text)));
  FUZZ_CHECK(mediagen::is_valid_utf8(plan.cleaned));
  FUZZ_CHECK(rejoin(plan) == plan.cleaned);
  FUZZ_CHECK(plan.total_chars == count_code_points(plan.cleaned));
  FUZZ_CHECK(plan.chunks.empty() == plan.cleaned.empty());
  std::size_t billable = 0, pauses = 0;
  bool caps_ok = true;
  for (std::size_t i = 0; i < plan.chunks.size(); ++i) {
    const ChunkText& chunk = plan.chunks[i];
    FUZZ_CHECK(chunk.index == i);
    check_chunk(chunk, options);
    billable += chunk.billable_length;
    pauses += chunk.pauses;
    caps_ok = caps_ok && chunk.caps_ok;
    const bool last = i + 1 == plan.chunks.size();
    if (last) FUZZ_CHECK(chunk.separator.empty());
    if (options.mode == GenerationMode::ordinary) {
      FUZZ_CHECK(!chunk.paragraph_index);
      continue;
    }
    FUZZ_CHECK(chunk.paragraph_index.has_value());
    if (i == 0) FUZZ_CHECK(*chunk.paragraph_index == 0);
    if (!last) {
      const std::size_t step = line_breaks(chunk.separator) >= 2 ? 1 : 0;
      FUZZ_CHECK(plan.chunks[i + 1].paragraph_index == *chunk.paragraph_index + step);
    }
  }
  FUZZ_CHECK(plan.billable_chars == billable);
  FUZZ_CHECK(plan.total_pauses == pauses);
  FUZZ_CHECK(plan.caps_ok == caps_ok);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  Bytes in{mediagen::fuzz::as_text(data, size)};
  ChunkerOptions options;
  options.capacity = 1 + in.u16() % kMaxCapacity;
  const std::uint8_t flags = in.u8();
  options.unit = (flags & 1) ? CapacityUnit::utf8_bytes : CapacityUnit::chars;
  options.mode = (flags & 2) ? GenerationMode::paragraph : GenerationMode::ordinary;
  if (flags & 4) options.lead_capacity = 1 + 16 * static_cast<std::size_t>(flags >> 3);
  const std::string_view text = in.rest;

  const ChunkPlan plan = plan_chunks(text, options);
  if (!mediagen::is_valid_utf8(text)) return 0;  // callers never pass it; it must only not crash
  check_plan(text, plan, options);
  if (options.lead_capacity > 0 && !plan.chunks.empty()) {
    const ChunkText& lead = plan.chunks.front();
    const bool one_wide_code_point = options.unit == CapacityUnit::utf8_bytes && lead.length == 1;
    FUZZ_CHECK(lead.raw_length <= options.lead_capacity || one_wide_code_point);
  }
  return 0;
}
