#include "mediagen/http/multipart.hpp"

#include <algorithm>
#include <utility>

#include "mediagen/core/utf8.hpp"
#include "multipart_headers.hpp"

namespace mediagen::http {

namespace {
constexpr std::string_view kReplacement = "\xEF\xBF\xBD";  // U+FFFD
}

std::string display_text(std::string_view bytes, std::size_t max_bytes) {
  std::string out;
  for (std::size_t i = 0; i < bytes.size();) {
    auto cp = decode_utf8(bytes.substr(i));
    std::string_view piece = kReplacement;
    std::size_t length = 1;
    // Every C0 control goes too (CR and LF included): the text ends up on log lines.
    if (cp && !(cp->value < 0x20 || cp->value == 0x7F)) {
      piece = bytes.substr(i, cp->length);
      length = cp->length;
    }
    if (out.size() + piece.size() > max_bytes) break;
    out += piece;
    i += length;
  }
  return out;
}

std::string MultipartPart::display_filename(std::size_t max_bytes) const {
  return filename ? display_text(*filename, max_bytes) : std::string{};
}

std::vector<const MultipartPart*> MultipartForm::all(std::string_view name) const {
  std::vector<const MultipartPart*> out;
  for (const auto& part : parts) {
    if (part.name == name) out.push_back(&part);
  }
  return out;
}

const MultipartPart* MultipartForm::first(std::string_view name) const {
  auto it = std::find_if(parts.begin(), parts.end(), [&](const MultipartPart& p) { return p.name == name; });
  return it == parts.end() ? nullptr : &*it;
}

std::string_view to_string(MultipartErrorKind kind) noexcept {
  switch (kind) {
    case MultipartErrorKind::total_too_large: return "total_too_large";
    case MultipartErrorKind::too_many_parts: return "too_many_parts";
    case MultipartErrorKind::part_header_too_large: return "part_header_too_large";
    case MultipartErrorKind::field_too_large: return "field_too_large";
    case MultipartErrorKind::file_too_large: return "file_too_large";
    case MultipartErrorKind::not_multipart: return "not_multipart";
    case MultipartErrorKind::no_delimiter: return "no_delimiter";
    case MultipartErrorKind::bad_delimiter: return "bad_delimiter";
    case MultipartErrorKind::truncated: return "truncated";
    case MultipartErrorKind::bad_part_header: return "bad_part_header";
    case MultipartErrorKind::missing_name: return "missing_name";
  }
  return "unknown";
}

int MultipartError::status() const noexcept {
  switch (kind) {
    case MultipartErrorKind::total_too_large:
    case MultipartErrorKind::too_many_parts:
    case MultipartErrorKind::part_header_too_large:
    case MultipartErrorKind::field_too_large:
    case MultipartErrorKind::file_too_large: return 413;
    default: return 422;
  }
}

bool operator==(const MultipartError& a, const MultipartError& b) noexcept {
  return a.kind == b.kind && a.detail == b.detail;
}

ApiError to_api_error(const MultipartError& error) {
  ApiError e = error.status() == 413 ? ApiError::payload_too_large()
                                     : ApiError::validation("body", Message{"validation.multipart"});
  e.internal = "multipart " + std::string(to_string(error.kind)) + ": " + error.detail;
  return e;
}

MultipartParser::MultipartParser(std::string boundary, MultipartLimits limits, FileSink sink)
    : delimiter_("\r\n--" + boundary), limits_(limits), sink_(std::move(sink)), buf_("\r\n") {
  // The CRLF above stands before the body, so a body that opens with "--boundary" (no preamble)
  // is found by the same search as every later delimiter.
}

const std::optional<MultipartError>& MultipartParser::feed(std::string_view chunk) {
  if (error_ || state_ == State::finished) return error_;
  const std::size_t room = limits_.max_total_bytes - total_;
  const std::size_t take = std::min(chunk.size(), room);
  // Read up to the limit first: where the refusal falls does not depend on how the body was cut.
  if (state_ != State::epilogue) buf_.append(chunk.substr(0, take));
  total_ += take;
  run();
  if (!error_ && take < chunk.size()) {
    fail(MultipartErrorKind::total_too_large, "body over " + std::to_string(limits_.max_total_bytes) + " bytes");
  }
  return error_;
}

const std::optional<MultipartError>& MultipartParser::finish() {
  if (error_ || state_ == State::finished) return error_;
  if (state_ == State::epilogue) state_ = State::finished;
  else if (state_ == State::preamble) fail(MultipartErrorKind::no_delimiter, "no boundary delimiter in the body");
  else fail(MultipartErrorKind::truncated, "the body ends before the close delimiter");
  return error_;
}

void MultipartParser::run() {
  while (!error_ && step()) {
  }
  if (error_ || state_ == State::epilogue) buf_.clear();
}

bool MultipartParser::step() {
  switch (state_) {
    case State::preamble: return step_preamble();
    case State::delimiter_line: return step_delimiter_line();
    case State::headers: return step_headers();
    case State::data: return step_data();
    case State::epilogue:
    case State::finished: return false;
  }
  return false;
}

bool MultipartParser::step_preamble() {
  const auto pos = buf_.find(delimiter_);
  if (pos == std::string::npos) {
    // Only a tail that may begin the delimiter is worth keeping.
    if (buf_.size() >= delimiter_.size()) buf_.erase(0, buf_.size() - (delimiter_.size() - 1));
    return false;
  }
  buf_.erase(0, pos + delimiter_.size());
  state_ = State::delimiter_line;
  return true;
}

// After "--boundary": "--" closes the body; otherwise transport padding (spaces, tabs) and CRLF
// open a part.
bool MultipartParser::step_delimiter_line() {
  if (buf_.empty()) return false;
  if (buf_[0] == '-' && !padded_) {
    if (buf_.size() < 2) return false;
    if (buf_[1] != '-') {
      fail(MultipartErrorKind::bad_delimiter, "a delimiter followed by a single '-'");
      return false;
    }
    state_ = State::epilogue;
    return false;
  }
  const auto padding = std::min(buf_.find_first_not_of(" \t"), buf_.size());
  padded_ = padded_ || padding > 0;  // "--" closes only right after the boundary
  buf_.erase(0, padding);  // dropped as it comes, however long
  if (buf_.empty()) return false;
  if (buf_[0] != '\r' || (buf_.size() >= 2 && buf_[1] != '\n')) {
    fail(MultipartErrorKind::bad_delimiter, "a delimiter not followed by CRLF");
    return false;
  }
  if (buf_.size() < 2) return false;
  if (form_.parts.size() >= limits_.max_parts) {
    fail(MultipartErrorKind::too_many_parts, "more than " + std::to_string(limits_.max_parts) + " parts");
    return false;
  }
  padded_ = false;
  header_scanned_ = 0;
  state_ = State::headers;  // the CRLF stays: the header block is then found by one search
  return true;
}

bool MultipartParser::step_headers() {
  // Only the new bytes are searched (and three before them), so headers arriving a byte at a
  // time cost no more than arriving at once.
  const auto pos = buf_.find("\r\n\r\n", header_scanned_ >= 3 ? header_scanned_ - 3 : 0);
  header_scanned_ = buf_.size();
  const std::size_t cap = limits_.max_part_header_bytes;
  // Header bytes: the lines and the blank line after them. Not yet ended but already longer than
  // the cap allows can only end past it.
  if ((pos == std::string::npos && buf_.size() > 4 && buf_.size() - 4 > cap) || (pos != std::string::npos && pos + 2 > cap)) {
    fail(MultipartErrorKind::part_header_too_large, "part headers over " + std::to_string(cap) + " bytes");
    return false;
  }
  if (pos == std::string::npos) return false;
  multipart_detail::PartHeaders headers;
  const std::string_view block = pos >= 2 ? std::string_view(buf_).substr(2, pos - 2) : std::string_view{};
  if (auto refusal = multipart_detail::parse_part_headers(block, headers)) {
    error_ = std::move(refusal);
    return false;
  }
  MultipartPart part;
  part.name = std::move(headers.name);
  part.filename = std::move(headers.filename);
  part.content_type = headers.content_type ? std::move(*headers.content_type)
                                           : std::string(part.filename ? "application/octet-stream" : "text/plain");
  form_.parts.push_back(std::move(part));
  buf_.erase(0, pos + 4);
  state_ = State::data;
  return true;
}

bool MultipartParser::step_data() {
  const auto pos = buf_.find(delimiter_);
  if (pos == std::string::npos) {
    // All but a tail that may begin the delimiter is the part's.
    if (buf_.size() >= delimiter_.size()) {
      const std::size_t n = buf_.size() - (delimiter_.size() - 1);
      emit(std::string_view(buf_).substr(0, n));
      if (!error_) buf_.erase(0, n);
    }
    return false;
  }
  emit(std::string_view(buf_).substr(0, pos));
  if (error_) return false;
  end_part();
  buf_.erase(0, pos + delimiter_.size());
  state_ = State::delimiter_line;
  return true;
}

void MultipartParser::emit(std::string_view bytes) {
  if (bytes.empty()) return;
  MultipartPart& part = form_.parts.back();
  const std::size_t limit = part.is_file() ? limits_.max_file_bytes : limits_.max_field_bytes;
  if (part.size + bytes.size() > limit) {
    fail(part.is_file() ? MultipartErrorKind::file_too_large : MultipartErrorKind::field_too_large,
         "part over " + std::to_string(limit) + " bytes");
    return;
  }
  part.size += bytes.size();
  if (part.is_file() && sink_) sink_(part, bytes, false);
  else part.data.append(bytes);
}

void MultipartParser::end_part() {
  const MultipartPart& part = form_.parts.back();
  if (part.is_file() && sink_) sink_(part, {}, true);
}

void MultipartParser::fail(MultipartErrorKind kind, std::string detail) {
  error_ = MultipartError{kind, std::move(detail)};
}

MultipartOutcome parse_multipart(std::string_view body, std::string boundary, const MultipartLimits& limits) {
  MultipartParser parser(std::move(boundary), limits);
  parser.feed(body);
  parser.finish();
  return {parser.take_form(), parser.error()};
}

}  // namespace mediagen::http
