#pragma once
// multipart/form-data request bodies (RFC 7578, delimiters per RFC 2046 5.1), parsed as they
// arrive: feed() takes the body in pieces of any size, so a body never has to be whole in memory.
// Fields are kept (bounded by max_field_bytes); file bytes are kept the same way (bounded by
// max_file_bytes: uploads here are audio of a few tens of MB at most) unless the caller passes a
// FileSink, which then gets each piece as it arrives and the part keeps only the count.
// Nothing throws out of the parser: a refusal is a value, its status fixed by its kind (413 for
// every limit, 422 for a body that is not well-formed), and to_api_error() turns it into the
// refusal a handler returns.
#include <cstddef>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "mediagen/core/api_error.hpp"

namespace mediagen::http {

// The boundary of a `multipart/form-data; boundary=...` Content-Type (type and parameter names
// case-insensitive, value a token or a quoted string); nullopt for any other type, or a boundary
// RFC 2046 refuses (not 1..70 bchars, or ending in a space).
std::optional<std::string> multipart_boundary(std::string_view content_type);

struct MultipartLimits {
  std::size_t max_total_bytes = 64 * 1024 * 1024;  // every byte fed, preamble and epilogue too
  std::size_t max_parts = 32;
  std::size_t max_part_header_bytes = 8 * 1024;     // one part's header lines and the blank line
  std::size_t max_field_bytes = 64 * 1024;          // a part without a filename
  std::size_t max_file_bytes = 50 * 1024 * 1024;    // a part with a filename
};

struct MultipartPart {
  std::string name;                     // client bytes, never empty
  std::optional<std::string> filename;  // client bytes (filename* decoded); present makes a file
  std::string content_type;             // as sent, or text/plain (field), application/octet-stream (file)
  std::string data;                     // the bytes, unless a FileSink took them
  std::size_t size = 0;                 // bytes of data, also when a FileSink took them

  bool is_file() const noexcept { return filename.has_value(); }
  // The file name as valid UTF-8 without control characters (each bad byte becomes U+FFFD), at
  // most max_bytes long and never cut inside a code point: for JSON and logs. Empty without one.
  std::string display_filename(std::size_t max_bytes = 255) const;
};

// Safe text of any client bytes, as display_filename does it.
std::string display_text(std::string_view bytes, std::size_t max_bytes);

struct MultipartForm {
  std::vector<MultipartPart> parts;  // in body order, repeated names kept

  // Every part of this name in body order ("files[]" sent several times).
  std::vector<const MultipartPart*> all(std::string_view name) const;
  // The first part of this name, or nullptr.
  const MultipartPart* first(std::string_view name) const;
};

enum class MultipartErrorKind {
  // 413: a limit; nothing more is read.
  total_too_large,
  too_many_parts,
  part_header_too_large,
  field_too_large,
  file_too_large,
  // 422: not a well-formed body.
  not_multipart,      // the Content-Type has no usable boundary (for handlers; the parser never says it)
  no_delimiter,       // nothing but preamble: empty, or not multipart at all
  bad_delimiter,      // a delimiter line followed by something other than padding and CRLF or "--"
  truncated,          // the body ended before the close delimiter
  bad_part_header,    // folding, no colon, bad Content-Disposition, repeated header, bad filename*
  missing_name,       // no Content-Disposition name, or an empty one
};

std::string_view to_string(MultipartErrorKind kind) noexcept;

struct MultipartError {
  MultipartErrorKind kind = MultipartErrorKind::truncated;
  std::string detail;  // for logs only

  int status() const noexcept;  // 413 or 422
};

bool operator==(const MultipartError& a, const MultipartError& b) noexcept;

// 413 payload_too_large, or 422 validation on "body" ("validation.multipart"); detail goes to
// ApiError::internal only.
ApiError to_api_error(const MultipartError& error);

// Receives a file part's bytes as they arrive (end false), then once more with no bytes and end
// true when the part is complete. After a refusal the pieces already given are the caller's to
// throw away.
using FileSink = std::function<void(const MultipartPart& part, std::string_view bytes, bool end)>;

class MultipartParser {
 public:
  MultipartParser(std::string boundary, MultipartLimits limits, FileSink sink = {});

  // Reads one more piece of the body. Once a refusal happened (here, or because this piece would
  // pass max_total_bytes: the bytes up to the limit are read, the rest not), it is returned by this
  // and every later call, which read nothing.
  const std::optional<MultipartError>& feed(std::string_view chunk);
  // The body has ended: a refusal unless the close delimiter was read.
  const std::optional<MultipartError>& finish();

  const std::optional<MultipartError>& error() const noexcept { return error_; }
  std::size_t bytes_read() const noexcept { return total_; }
  // The parts read so far (complete ones after a successful finish()).
  const MultipartForm& form() const noexcept { return form_; }
  MultipartForm take_form() { return std::move(form_); }

 private:
  enum class State { preamble, delimiter_line, headers, data, epilogue, finished };

  void run();
  bool step();
  bool step_preamble();
  bool step_delimiter_line();
  bool step_headers();
  bool step_data();
  void emit(std::string_view bytes);
  void end_part();
  void fail(MultipartErrorKind kind, std::string detail);

  std::string delimiter_;  // CRLF "--" boundary
  MultipartLimits limits_;
  FileSink sink_;
  State state_ = State::preamble;
  std::string buf_;  // bytes read but not yet consumed
  std::size_t total_ = 0;
  bool padded_ = false;  // transport padding seen after the current delimiter
  std::size_t header_scanned_ = 0;  // bytes of buf_ already searched for the end of the headers
  std::optional<MultipartError> error_;
  MultipartForm form_;
};

// The whole body at once (tests, small bodies).
struct MultipartOutcome {
  MultipartForm form;
  std::optional<MultipartError> error;
};
MultipartOutcome parse_multipart(std::string_view body, std::string boundary, const MultipartLimits& limits);

}  // namespace mediagen::http
