// POST /orders as multipart/form-data: the form read as the JSON body (orders/order_form.hpp),
// and voice search's judgement of its files (orders/voice_search_order.hpp).
#include "orders/routes/order_form.hpp"

#include <gtest/gtest.h>

#include <string>

#include "mediagen/orders/request.hpp"
#include "mediagen/orders/create.hpp"

namespace mediagen::orders {
namespace {

using json = nlohmann::json;

struct Part {
  std::string name;
  std::string data;
  std::string filename;  // empty: a field
};

std::string body_of(const std::vector<Part>& parts) {
  std::string body;
  for (const auto& p : parts) {
    body += "--XyZ\r\nContent-Disposition: form-data; name=\"" + p.name + "\"";
    if (!p.filename.empty()) body += "; filename=\"" + p.filename + "\"\r\nContent-Type: audio/wav";
    body += "\r\n\r\n" + p.data + "\r\n";
  }
  return body + "--XyZ--\r\n";
}

http::MultipartForm form_of(const std::vector<Part>& parts) {
  auto outcome = http::parse_multipart(body_of(parts), "XyZ", http::MultipartLimits{});
  EXPECT_FALSE(outcome.error) << (outcome.error ? outcome.error->detail : "");
  return std::move(outcome.form);
}

// A few bytes libmagic calls audio/x-wav: a RIFF/WAVE header with one silent sample.
std::string tiny_wav() {
  std::string w = "RIFF";
  const auto put = [&](std::uint32_t v, int n) {
    for (int i = 0; i < n; ++i) w += static_cast<char>((v >> (8 * i)) & 0xFF);
  };
  put(38, 4);
  w += "WAVEfmt ";
  put(16, 4), put(1, 2), put(1, 2), put(16000, 4), put(32000, 4), put(2, 2), put(16, 2);
  w += "data";
  put(2, 4), put(0, 2);
  return w;
}

std::vector<std::string> error_fields(const ApiError& e) {
  std::vector<std::string> out;
  for (const auto& f : e.fields) out.push_back(f.field);
  return out;
}

TEST(OrderForm, FieldsBecomeTheJsonBodyAndFilesAreCollected) {
  const auto form = form_of({{"task_type", "voice_search"},
                             {"task_data[top]", "5"},
                             {"input_files[]", "RIFF-one", "a.wav"},
                             {"input_files", "RIFF-two", "b.wav"},
                             {"something_else", "ignored"}});
  auto read = read_order_form(form);
  ASSERT_TRUE(read);
  EXPECT_EQ(read->body, json({{"task_type", "voice_search"}, {"task_data", {{"top", 5}}}}));
  ASSERT_EQ(read->files.size(), 2u);
  EXPECT_EQ(read->files[0], "RIFF-one");
  EXPECT_EQ(read->files[1], "RIFF-two");
}

TEST(OrderForm, TopAsTextIsReadByTheSameRulesAsJson) {
  const auto top_errors = [](const std::string& value) {
    auto read = read_order_form(form_of({{"task_type", "voice_search"}, {"task_data[top]", value}}));
    EXPECT_TRUE(read);
    auto req = read_create_request(read->body);
    EXPECT_TRUE(req);
    if (auto e = req->errors.take()) return error_fields(*e);
    return std::vector<std::string>{};
  };
  const std::vector<std::string> top{"task_data.top"};
  EXPECT_TRUE(top_errors("5").empty());
  EXPECT_TRUE(top_errors("50").empty());
  EXPECT_EQ(top_errors("abc"), top);
  EXPECT_EQ(top_errors("0"), top);
  EXPECT_EQ(top_errors("51"), top);
  EXPECT_EQ(top_errors("2.5"), top);

  auto read = read_order_form(form_of({{"task_type", "voice_search"}, {"task_data[top]", "7"}}));
  EXPECT_EQ(read_create_request(read->body)->top, 7);
  read = read_order_form(form_of({{"task_type", "voice_search"}}));
  EXPECT_EQ(read_create_request(read->body)->top, 10);  // the default
}

TEST(OrderForm, TaskDataAsJsonTextAndMembersBesideIt) {
  auto read = read_order_form(form_of({{"task_data", R"({"top": 3, "other": "x"})"}, {"task_data[top]", "4"}}));
  ASSERT_TRUE(read);
  EXPECT_EQ(read->body["task_data"], json({{"top", 4}, {"other", "x"}}));  // the member wins

  read = read_order_form(form_of({{"task_data", "[1, 2]"}}));
  ASSERT_FALSE(read);
  EXPECT_EQ(read.error().status, 422);
  EXPECT_EQ(error_fields(read.error()), std::vector<std::string>{"task_data"});
}

TEST(OrderForm, BooleansRepeatsAndBadText) {
  auto read = read_order_form(
      form_of({{"confirm_payg_topup", "true"}, {"task_type", "voice_search"}, {"task_type", "sfx"}}));
  ASSERT_TRUE(read);
  EXPECT_EQ(read->body["confirm_payg_topup"], true);
  EXPECT_EQ(read->body["task_type"], "voice_search");  // the first of a repeated name

  read = read_order_form(form_of({{"task_type", std::string("voice\xff", 6)}}));
  ASSERT_FALSE(read);
  EXPECT_EQ(error_fields(read.error()), std::vector<std::string>{"task_type"});
  // A member name is client bytes too (found by fuzz_order_form): it would be a JSON key.
  read = read_order_form(form_of({{std::string("task_data[\xff]"), "1"}}));
  ASSERT_FALSE(read);
  EXPECT_EQ(read.error().status, 422);
  // Not UTF-8 but unknown: ignored like any unknown field.
  EXPECT_TRUE(read_order_form(form_of({{"mystery", std::string("\xff\xfe", 2)}})));
}

TEST(VoiceSearchUpload, JudgedByContentAlone) {
  FieldErrors errors;
  const std::string wav = tiny_wav();
  const std::string png = std::string("\x89PNG\r\n\x1a\n", 8) + std::string(64, '\0');

  std::vector<std::string_view> none;
  auto judged = judge_voice_search_upload(none, errors);
  ASSERT_TRUE(judged.refusal);
  EXPECT_EQ(judged.refusal->reason, Reason::source_file_required);

  std::vector<std::string_view> empty{std::string_view()};
  judged = judge_voice_search_upload(empty, errors);
  ASSERT_TRUE(judged.refusal);
  EXPECT_EQ(judged.refusal->reason, Reason::source_file_required);

  std::vector<std::string_view> picture{png};
  judged = judge_voice_search_upload(picture, errors);
  ASSERT_TRUE(judged.refusal);
  EXPECT_EQ(judged.refusal->reason, Reason::source_file_unsupported);

  std::vector<std::string_view> audio{wav};
  judged = judge_voice_search_upload(audio, errors);
  EXPECT_FALSE(judged.refusal);
  ASSERT_TRUE(judged.bytes);
  EXPECT_EQ(judged.bytes->size(), wav.size());
  EXPECT_TRUE(errors.empty());

  std::vector<std::string_view> two{wav, wav};
  judged = judge_voice_search_upload(two, errors);
  EXPECT_FALSE(judged.bytes);
  auto e = errors.take();
  ASSERT_TRUE(e);
  EXPECT_EQ(error_fields(*e), std::vector<std::string>{"input_files"});
}

TEST(VoiceSearchUpload, EngineRequestRoundTrip) {
  const auto parsed = read_voice_search_request(R"({"engine": "voice_search", "upload": "orders/x/input/sample", "top": 7})");
  ASSERT_TRUE(parsed);
  EXPECT_EQ(parsed->upload, "orders/x/input/sample");
  EXPECT_EQ(parsed->top, 7);
  EXPECT_FALSE(read_voice_search_request(R"({"engine": "voice_search"})"));
  EXPECT_FALSE(read_voice_search_request("not json"));
  EXPECT_EQ(voice_search_upload_key("6f1c2a8e-3b4d-4e5f-8a9b-0c1d2e3f4a5b"),
            "orders/6f1c2a8e-3b4d-4e5f-8a9b-0c1d2e3f4a5b/input/sample");
}

}  // namespace
}  // namespace mediagen::orders
