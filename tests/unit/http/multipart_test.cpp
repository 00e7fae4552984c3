#include "mediagen/http/multipart.hpp"

#include <gtest/gtest.h>

#include <limits>
#include <random>
#include <string>
#include <vector>

#include "mediagen/core/utf8.hpp"

namespace mediagen::http {
namespace {

const std::string kBoundary = "----formdata-b0undary";

std::string part(std::string_view headers, std::string_view data) {
  return "--" + kBoundary + "\r\n" + std::string(headers) + "\r\n\r\n" + std::string(data) + "\r\n";
}
std::string close() { return "--" + kBoundary + "--\r\n"; }

const std::string kWavBytes = std::string("RIFF\x24\0\0\0WAVEfmt \r\n--not-at-line-start\r\n\0\xff", 36);

// A field and two files of the same name, the second with CRLF and a boundary-like text inside.
std::string normal_body() {
  return part("Content-Disposition: form-data; name=\"name\"", "My voice") +
         part("Content-Disposition: form-data; name=\"files[]\"; filename=\"a.wav\"\r\nContent-Type: audio/wav",
              "first file") +
         part("content-disposition: form-data; name=\"files[]\"; filename=\"b.wav\"", kWavBytes + "x--" + kBoundary) +
         close();
}

struct Seen {
  std::string name;
  std::optional<std::string> filename;
  std::string content_type;
  std::string data;
  bool operator==(const Seen&) const = default;
};

std::vector<Seen> seen(const MultipartForm& form) {
  std::vector<Seen> out;
  for (const auto& p : form.parts) out.push_back({p.name, p.filename, p.content_type, p.data});
  return out;
}

MultipartOutcome parse(std::string_view body, const MultipartLimits& limits = {}) {
  return parse_multipart(body, kBoundary, limits);
}

MultipartErrorKind refusal(std::string_view body, const MultipartLimits& limits = {}) {
  auto outcome = parse(body, limits);
  EXPECT_TRUE(outcome.error.has_value()) << "accepted: " << body;
  return outcome.error ? outcome.error->kind : MultipartErrorKind::not_multipart;
}

TEST(MultipartBoundary, ReadsTokenAndQuotedCaseInsensitively) {
  EXPECT_EQ(multipart_boundary("multipart/form-data; boundary=abc123"), "abc123");
  EXPECT_EQ(multipart_boundary("Multipart/Form-Data;BOUNDARY=\"a b:c\""), "a b:c");
  EXPECT_EQ(multipart_boundary("multipart/form-data; charset=utf-8; boundary=\"x\"; foo=bar"), "x");
  EXPECT_EQ(multipart_boundary(std::string("multipart/form-data; boundary=") + std::string(70, 'a')), std::string(70, 'a'));
}

TEST(MultipartBoundary, RefusesWhatRfc2046Refuses) {
  EXPECT_FALSE(multipart_boundary("application/json"));
  EXPECT_FALSE(multipart_boundary("multipart/mixed; boundary=abc"));
  EXPECT_FALSE(multipart_boundary("multipart/form-data"));
  EXPECT_FALSE(multipart_boundary("multipart/form-data; boundary="));
  EXPECT_FALSE(multipart_boundary("multipart/form-data; boundary=\"\""));
  EXPECT_FALSE(multipart_boundary("multipart/form-data; boundary=\"ends in space \""));
  EXPECT_FALSE(multipart_boundary("multipart/form-data; boundary=\"semi;colon\""));
  EXPECT_FALSE(multipart_boundary(std::string("multipart/form-data; boundary=") + std::string(71, 'a')));
  EXPECT_FALSE(multipart_boundary("multipart/form-data; boundary=a; boundary=b"));
  EXPECT_FALSE(multipart_boundary("multipart/form-data; boundary=\"unterminated"));
}

TEST(Multipart, ReadsAFieldAndTwoFilesInOrder) {
  auto outcome = parse("preamble to ignore\r\n" + normal_body() + "epilogue to ignore");
  ASSERT_FALSE(outcome.error) << outcome.error->detail;
  const auto expected = std::vector<Seen>{
      {"name", std::nullopt, "text/plain", "My voice"},
      {"files[]", "a.wav", "audio/wav", "first file"},
      {"files[]", "b.wav", "application/octet-stream", kWavBytes + "x--" + kBoundary},
  };
  EXPECT_EQ(seen(outcome.form), expected);
  auto files = outcome.form.all("files[]");
  ASSERT_EQ(files.size(), 2U);
  EXPECT_EQ(files[0]->filename, "a.wav");
  EXPECT_EQ(files[1]->filename, "b.wav");
  EXPECT_EQ(files[1]->size, files[1]->data.size());
  ASSERT_NE(outcome.form.first("name"), nullptr);
  EXPECT_EQ(outcome.form.first("missing"), nullptr);
  EXPECT_TRUE(outcome.form.all("input_files[]").empty());
}

TEST(Multipart, ByteByByteAndRandomSplitsGiveTheSameParts) {
  const std::string body = "pre\r\n" + normal_body() + "post";
  const auto whole = seen(parse(body).form);
  MultipartParser bytewise(kBoundary, {});
  for (char c : body) ASSERT_FALSE(bytewise.feed(std::string_view(&c, 1)));
  ASSERT_FALSE(bytewise.finish());
  EXPECT_EQ(seen(bytewise.form()), whole);

  std::mt19937 random(16);
  for (int round = 0; round < 200; ++round) {
    MultipartParser parser(kBoundary, {});
    for (std::size_t at = 0; at < body.size();) {
      const std::size_t n = std::uniform_int_distribution<std::size_t>(1, 40)(random);
      ASSERT_FALSE(parser.feed(std::string_view(body).substr(at, n)));
      at += n;
    }
    ASSERT_FALSE(parser.finish());
    EXPECT_EQ(seen(parser.form()), whole);
  }
}

// Padding then "-" is a bad delimiter line, however the body was cut (the fuzzer found a cut that
// took it for the start of a close delimiter).
TEST(Multipart, RefusalsDoNotDependOnTheCut) {
  const std::string body = "--" + kBoundary + " \t-\r\n" + close();
  const auto whole = parse(body).error;
  ASSERT_TRUE(whole);
  EXPECT_EQ(whole->kind, MultipartErrorKind::bad_delimiter);
  for (std::size_t cut = 0; cut <= body.size(); ++cut) {
    MultipartParser parser(kBoundary, {});
    parser.feed(std::string_view(body).substr(0, cut));
    parser.feed(std::string_view(body).substr(cut));
    EXPECT_EQ(parser.finish(), whole) << cut;
  }
}

TEST(Multipart, FileSinkGetsTheBytesInPiecesAndTheEnd) {
  std::string got;
  int ends = 0;
  MultipartParser parser(kBoundary, {}, [&](const MultipartPart& p, std::string_view bytes, bool end) {
    EXPECT_TRUE(p.is_file());
    got += bytes;
    if (end) got += "|" + *p.filename + "|", ++ends;
  });
  const std::string body = normal_body();
  for (std::size_t at = 0; at < body.size(); at += 7) parser.feed(std::string_view(body).substr(at, 7));
  ASSERT_FALSE(parser.finish());
  EXPECT_EQ(got, "first file|a.wav|" + kWavBytes + "x--" + kBoundary + "|b.wav|");
  EXPECT_EQ(ends, 2);
  EXPECT_EQ(parser.form().parts[1].data, "");
  EXPECT_EQ(parser.form().parts[1].size, 10U);
  EXPECT_EQ(parser.form().parts[0].data, "My voice");  // fields are always kept
}

TEST(Multipart, NoPreambleTransportPaddingAndQuotedBoundary) {
  auto boundary = multipart_boundary("multipart/form-data; boundary=\"with space\"");
  ASSERT_TRUE(boundary);
  const std::string body = "--with space \t \r\nContent-Disposition: form-data; name=a\r\n\r\n1\r\n--with space-- \t\r\nepilogue";
  auto outcome = parse_multipart(body, *boundary, {});
  ASSERT_FALSE(outcome.error) << outcome.error->detail;
  ASSERT_EQ(outcome.form.parts.size(), 1U);
  EXPECT_EQ(outcome.form.parts[0].data, "1");
}

TEST(Multipart, EmptyFilePartAndNoPartsAreAccepted) {
  auto outcome = parse(part("Content-Disposition: form-data; name=\"files[]\"; filename=\"\"", "") + close());
  ASSERT_FALSE(outcome.error);
  ASSERT_EQ(outcome.form.parts.size(), 1U);
  EXPECT_EQ(outcome.form.parts[0].filename, "");
  EXPECT_EQ(outcome.form.parts[0].size, 0U);
  EXPECT_FALSE(parse(close()).error);
}

TEST(Multipart, FilenameStarIsDecodedAndWins) {
  auto outcome = parse(part("Content-Disposition: form-data; name=f; filename=\"plain.wav\"; "
                            "filename*=UTF-8''%D0%B3%D0%BE%D0%BB%D0%BE%D1%81.wav", "x") + close());
  ASSERT_FALSE(outcome.error) << outcome.error->detail;
  EXPECT_EQ(outcome.form.parts[0].filename, "\xD0\xB3\xD0\xBE\xD0\xBB\xD0\xBE\xD1\x81.wav");
  EXPECT_EQ(refusal(part("Content-Disposition: form-data; name=f; filename*=latin1''a.wav", "x") + close()),
            MultipartErrorKind::bad_part_header);
  EXPECT_EQ(refusal(part("Content-Disposition: form-data; name=f; filename*=UTF-8''%zz", "x") + close()),
            MultipartErrorKind::bad_part_header);
  EXPECT_EQ(refusal(part("Content-Disposition: form-data; name=f; filename*=UTF-8''%4", "x") + close()),
            MultipartErrorKind::bad_part_header);
}

TEST(Multipart, QuotedStringEscapesAndUnknownHeaders) {
  auto outcome = parse(part("X-Whatever: 1\r\nContent-Disposition: form-data; name=\"a\\\"b\"; filename=\"c\\\\d\"",
                            "x") + close());
  ASSERT_FALSE(outcome.error) << outcome.error->detail;
  EXPECT_EQ(outcome.form.parts[0].name, "a\"b");
  EXPECT_EQ(outcome.form.parts[0].filename, "c\\d");
}

TEST(Multipart, NonUtf8FileNameIsKeptAndDisplayable) {
  const std::string raw = "bad\xff\xfe\xc3(\r\n.wav";
  auto outcome = parse(part("Content-Disposition: form-data; name=f; filename=\"bad\xff\xfe\xc3(\"", "x") + close());
  ASSERT_FALSE(outcome.error) << outcome.error->detail;
  EXPECT_EQ(outcome.form.parts[0].filename, "bad\xff\xfe\xc3(");
  const std::string shown = outcome.form.parts[0].display_filename();
  EXPECT_TRUE(is_valid_utf8(shown));
  EXPECT_EQ(shown, "bad\xEF\xBF\xBD\xEF\xBF\xBD\xEF\xBF\xBD(");
  EXPECT_EQ(display_text(raw, 100), "bad\xEF\xBF\xBD\xEF\xBF\xBD\xEF\xBF\xBD(\xEF\xBF\xBD\xEF\xBF\xBD.wav");
  // Never cut inside a code point: four bytes of "aé" + "é" stop before the second é.
  EXPECT_EQ(display_text("a\xC3\xA9\xC3\xA9", 4), "a\xC3\xA9");
}

TEST(Multipart, BadPartHeadersAreRefused) {
  const auto cd = [](std::string_view rest) { return part(rest, "x") + close(); };
  EXPECT_EQ(refusal(cd("Content-Disposition: form-data;\r\n name=a")), MultipartErrorKind::bad_part_header);
  EXPECT_EQ(refusal(cd("Content-Disposition form-data; name=a")), MultipartErrorKind::bad_part_header);
  EXPECT_EQ(refusal(cd("Content-Disposition: attachment; name=a")), MultipartErrorKind::bad_part_header);
  EXPECT_EQ(refusal(cd("Content-Disposition: form-data; name=a\r\nContent-Disposition: form-data; name=b")),
            MultipartErrorKind::bad_part_header);
  EXPECT_EQ(refusal(cd("Content-Disposition: form-data; name=a; name=b")), MultipartErrorKind::bad_part_header);
  EXPECT_EQ(refusal(cd("Content-Disposition: form-data; name=\"a")), MultipartErrorKind::bad_part_header);
  EXPECT_EQ(refusal(cd("Content-Disposition: form-data; name=a\nX: y")), MultipartErrorKind::bad_part_header);
  EXPECT_EQ(refusal(cd("Content-Disposition: form-data; name=a\r\nContent-Type:")), MultipartErrorKind::bad_part_header);
  EXPECT_EQ(refusal(cd("Content-Disposition: form-data; name=a\r\nContent-Type: audio/\xff")),
            MultipartErrorKind::bad_part_header);
}

TEST(Multipart, APartWithoutANameIsRefused) {
  EXPECT_EQ(refusal(part("Content-Disposition: form-data; filename=\"a.wav\"", "x") + close()),
            MultipartErrorKind::missing_name);
  EXPECT_EQ(refusal(part("Content-Disposition: form-data; name=\"\"", "x") + close()), MultipartErrorKind::missing_name);
  EXPECT_EQ(refusal(part("Content-Type: text/plain", "x") + close()), MultipartErrorKind::missing_name);
}

TEST(Multipart, MalformedBodiesAreRefusedWith422) {
  EXPECT_EQ(refusal(""), MultipartErrorKind::no_delimiter);
  EXPECT_EQ(refusal("{\"json\": true}"), MultipartErrorKind::no_delimiter);
  EXPECT_EQ(refusal(part("Content-Disposition: form-data; name=a", "x")), MultipartErrorKind::truncated);
  EXPECT_EQ(refusal(part("Content-Disposition: form-data; name=a", "x").substr(0, 60)), MultipartErrorKind::truncated);
  EXPECT_EQ(refusal("--" + kBoundary + "\r\nContent-Disposition: form-data; name=a"), MultipartErrorKind::truncated);
  EXPECT_EQ(refusal("--" + kBoundary + "x\r\n"), MultipartErrorKind::bad_delimiter);
  EXPECT_EQ(refusal("--" + kBoundary + "-x"), MultipartErrorKind::bad_delimiter);
  EXPECT_EQ(refusal("--" + kBoundary + "  \n"), MultipartErrorKind::bad_delimiter);
  const MultipartError error{MultipartErrorKind::truncated, "d"};
  EXPECT_EQ(error.status(), 422);
  const ApiError api = to_api_error(error);
  EXPECT_EQ(api.status, 422);
  EXPECT_EQ(api.shape, ErrorShape::validation);
  ASSERT_EQ(api.fields.size(), 1U);
  EXPECT_EQ(api.fields[0].field, "body");
  EXPECT_EQ(api.fields[0].messages[0].key, "validation.multipart");
  EXPECT_EQ(to_api_error({MultipartErrorKind::not_multipart, ""}).status, 422);
}

TEST(Multipart, TotalLimitStopsReadingAtOnce) {
  MultipartLimits limits;
  limits.max_total_bytes = 100;
  MultipartParser parser(kBoundary, limits);
  const std::string body = part("Content-Disposition: form-data; name=f; filename=a", std::string(1000, 'z')) + close();
  ASSERT_FALSE(parser.feed(std::string_view(body).substr(0, 60)));
  auto error = parser.feed(std::string_view(body).substr(60));
  ASSERT_TRUE(error);
  EXPECT_EQ(error->kind, MultipartErrorKind::total_too_large);
  EXPECT_EQ(error->status(), 413);
  EXPECT_EQ(parser.bytes_read(), 100U);
  EXPECT_TRUE(parser.feed("more"));  // still refused, nothing read
  EXPECT_EQ(parser.bytes_read(), 100U);
  EXPECT_EQ(parser.finish()->kind, MultipartErrorKind::total_too_large);
  EXPECT_EQ(to_api_error(*error).status, 413);
  EXPECT_EQ(to_api_error(*error).shape, ErrorShape::plain);
}

TEST(Multipart, DeclaredHugeFileIsRefusedByTheFileLimitWithoutReadingOn) {
  MultipartLimits limits;
  limits.max_file_bytes = 1000;
  MultipartParser parser(kBoundary, limits);
  ASSERT_FALSE(parser.feed("--" + kBoundary + "\r\nContent-Disposition: form-data; name=f; filename=a.wav\r\n\r\n"));
  const std::string chunk(600, 'a');
  ASSERT_FALSE(parser.feed(chunk));
  auto error = parser.feed(chunk);
  ASSERT_TRUE(error);
  EXPECT_EQ(error->kind, MultipartErrorKind::file_too_large);
  EXPECT_EQ(error->status(), 413);
  const std::size_t read = parser.bytes_read();
  parser.feed(chunk);
  EXPECT_EQ(parser.bytes_read(), read);
  EXPECT_LE(parser.form().parts[0].data.size(), 1000U);
}

TEST(Multipart, FieldLimitAndExactLimitsPass) {
  MultipartLimits limits;
  limits.max_field_bytes = 5;
  EXPECT_FALSE(parse(part("Content-Disposition: form-data; name=a", "12345") + close(), limits).error);
  EXPECT_EQ(refusal(part("Content-Disposition: form-data; name=a", "123456") + close(), limits),
            MultipartErrorKind::field_too_large);
  // Files have their own limit.
  EXPECT_FALSE(parse(part("Content-Disposition: form-data; name=a; filename=b", "123456") + close(), limits).error);
  const std::string body = part("Content-Disposition: form-data; name=a", "12345") + close();
  limits.max_total_bytes = body.size();
  EXPECT_FALSE(parse(body, limits).error);
  limits.max_total_bytes = body.size() - 1;
  EXPECT_EQ(refusal(body, limits), MultipartErrorKind::total_too_large);
}

TEST(Multipart, LimitsAtTheirLargestDoNotWrapAround) {
  const std::size_t most = std::numeric_limits<std::size_t>::max();
  const MultipartLimits limits{most, most, most, most, most};
  MultipartParser parser(kBoundary, limits);
  for (char c : normal_body()) parser.feed(std::string_view(&c, 1));  // headers seen before their end
  ASSERT_FALSE(parser.finish()) << parser.error()->detail;
  EXPECT_EQ(parser.form().parts.size(), 3U);
}

TEST(Multipart, PartCapRefusesTheHundredAndFirstPart) {
  MultipartLimits limits;
  limits.max_parts = 100;
  std::string hundred;
  for (int i = 0; i < 100; ++i) hundred += part("Content-Disposition: form-data; name=\"files[]\"; filename=f", "x");
  auto ok = parse(hundred + close(), limits);
  ASSERT_FALSE(ok.error);
  EXPECT_EQ(ok.form.all("files[]").size(), 100U);
  auto outcome = parse(hundred + part("Content-Disposition: form-data; name=x", "x") + close(), limits);
  ASSERT_TRUE(outcome.error);
  EXPECT_EQ(outcome.error->kind, MultipartErrorKind::too_many_parts);
  EXPECT_EQ(outcome.error->status(), 413);
  EXPECT_LE(outcome.form.parts.size(), 100U);
}

TEST(Multipart, PartHeaderCap) {
  MultipartLimits limits;
  limits.max_part_header_bytes = 64;
  const std::string name(40, 'n');
  const std::string headers = "Content-Disposition: form-data; name=" + name;  // 77 bytes + CRLF CRLF
  EXPECT_EQ(refusal(part(headers, "x") + close(), limits), MultipartErrorKind::part_header_too_large);
  limits.max_part_header_bytes = headers.size() + 4;
  EXPECT_FALSE(parse(part(headers, "x") + close(), limits).error);
  limits.max_part_header_bytes = headers.size() + 3;
  EXPECT_EQ(refusal(part(headers, "x") + close(), limits), MultipartErrorKind::part_header_too_large);
  // Headers that never end are refused once past the cap, not at the end of the body.
  limits.max_part_header_bytes = 64;
  MultipartParser parser(kBoundary, limits);
  parser.feed("--" + kBoundary + "\r\nX-Long: ");
  const std::optional<MultipartError>* error = nullptr;
  for (int i = 0; i < 100 && !(error = &parser.feed("aaaa"))->has_value(); ++i) {
  }
  ASSERT_TRUE(error->has_value());
  EXPECT_EQ((*error)->kind, MultipartErrorKind::part_header_too_large);
  EXPECT_LT(parser.bytes_read(), 120U);
}

}  // namespace
}  // namespace mediagen::http
