// The multipart/form-data parser (include/mediagen/http/multipart.hpp). Input: a first line, the
// Content-Type (its boundary is used when multipart_boundary accepts it, else "b"); then two bytes
// choosing small limits and two bytes of split point; the rest is the body. Properties:
//   - nothing crashes or leaks, whatever the bytes;
//   - one feed, two feeds cut anywhere and (for short bodies) one byte at a time give the same
//     outcome, and on success the same parts;
//   - a FileSink run gives the same outcome, its pieces rejoining to each file's bytes;
//   - the limits hold: parts, field and file sizes, bytes read; a refusal is 413 or 422;
//   - a boundary accepted from the Content-Type is 1..70 bytes; every display_filename is UTF-8.
#include <string>
#include <string_view>
#include <vector>

#include "fuzz_support.hpp"
#include "mediagen/core/utf8.hpp"
#include "mediagen/http/multipart.hpp"

namespace {

using namespace mediagen::http;

struct Run {
  std::optional<MultipartError> error;
  MultipartForm form;
  std::vector<std::string> sunk;  // per file part, when a sink was used
};

Run run(std::string_view body, const std::string& boundary, const MultipartLimits& limits,
        const std::vector<std::size_t>& cuts, bool with_sink) {
  Run out;
  FileSink sink;
  std::string current;
  if (with_sink) {
    sink = [&](const MultipartPart& part, std::string_view bytes, bool end) {
      FUZZ_CHECK(part.is_file());
      current += bytes;
      if (end) out.sunk.push_back(std::move(current)), current.clear();
    };
  }
  MultipartParser parser(boundary, limits, sink);
  std::size_t at = 0;
  for (std::size_t cut : cuts) {
    parser.feed(body.substr(at, cut - at));
    at = cut;
  }
  parser.feed(body.substr(at));
  parser.finish();
  FUZZ_CHECK(parser.bytes_read() <= limits.max_total_bytes);
  out.error = parser.error();
  out.form = parser.take_form();
  return out;
}

void check_limits(const Run& r, const MultipartLimits& limits) {
  FUZZ_CHECK(r.form.parts.size() <= limits.max_parts);
  for (const auto& part : r.form.parts) {
    FUZZ_CHECK(!part.name.empty());
    FUZZ_CHECK(part.size <= (part.is_file() ? limits.max_file_bytes : limits.max_field_bytes));
    FUZZ_CHECK(mediagen::is_valid_utf8(part.display_filename()));
  }
  if (r.error) FUZZ_CHECK(r.error->status() == 413 || r.error->status() == 422);
  if (r.error) FUZZ_CHECK(r.error->kind != MultipartErrorKind::not_multipart);
}

bool same_parts(const MultipartForm& a, const MultipartForm& b) {
  if (a.parts.size() != b.parts.size()) return false;
  for (std::size_t i = 0; i < a.parts.size(); ++i) {
    const auto &x = a.parts[i], &y = b.parts[i];
    if (x.name != y.name || x.filename != y.filename || x.content_type != y.content_type || x.data != y.data ||
        x.size != y.size) {
      return false;
    }
  }
  return true;
}

void check_same(const Run& a, const Run& b) {
  FUZZ_CHECK(a.error == b.error);
  if (!a.error) FUZZ_CHECK(same_parts(a.form, b.form));
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view input = mediagen::fuzz::as_text(data, size);
  const auto nl = input.find('\n');
  const std::string_view content_type = input.substr(0, nl);
  const auto accepted = multipart_boundary(content_type);
  if (accepted) FUZZ_CHECK(!accepted->empty() && accepted->size() <= 70);
  const std::string boundary = accepted.value_or("b");
  mediagen::fuzz::Bytes in{nl == std::string_view::npos ? std::string_view{} : input.substr(nl + 1)};
  const std::uint8_t a = in.u8(), b = in.u8();
  MultipartLimits limits;
  limits.max_total_bytes = 256 + (a & 7U) * 256;
  limits.max_parts = 1 + ((a >> 3) & 7U);
  limits.max_part_header_bytes = 8 + (b & 15U) * 16;
  limits.max_field_bytes = ((b >> 4) & 3U) * 64;
  limits.max_file_bytes = ((b >> 6) & 3U) * 128;
  const std::size_t split = in.u16();
  const std::string_view body = in.rest;

  const Run whole = run(body, boundary, limits, {}, false);
  check_limits(whole, limits);
  check_same(whole, run(body, boundary, limits, {split % (body.size() + 1)}, false));
  if (body.size() <= 600) {
    std::vector<std::size_t> every;
    for (std::size_t i = 1; i < body.size(); ++i) every.push_back(i);
    check_same(whole, run(body, boundary, limits, every, false));
  }
  const Run sunk = run(body, boundary, limits, {split % (body.size() + 1)}, true);
  FUZZ_CHECK(sunk.error == whole.error);
  if (!whole.error) {
    std::size_t file = 0;
    for (const auto& part : whole.form.parts) {
      if (!part.is_file()) continue;
      FUZZ_CHECK(file < sunk.sunk.size() && sunk.sunk[file] == part.data);
      ++file;
    }
    FUZZ_CHECK(file == sunk.sunk.size());
  }
  return 0;
}
