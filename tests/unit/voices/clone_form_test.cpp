// Reading a clone create request: name rules, the files[] samples judged by content, and a JSON
// body refused like a form without files.
#include "voices/clone_form.hpp"

#include <gtest/gtest.h>

#include <cmath>

#include <nlohmann/json.hpp>

namespace mediagen::voices {
namespace {

const std::string kBoundary = "b0undary";

struct Part {
  std::string name;
  std::string data;
  std::optional<std::string> filename;
};

http::MultipartForm form(const std::vector<Part>& parts) {
  std::string body;
  for (const auto& p : parts) {
    body += "--" + kBoundary + "\r\nContent-Disposition: form-data; name=\"" + p.name + "\"";
    if (p.filename) body += "; filename=\"" + *p.filename + "\"\r\nContent-Type: audio/wav";
    body += "\r\n\r\n" + p.data + "\r\n";
  }
  body += "--" + kBoundary + "--\r\n";
  auto outcome = http::parse_multipart(body, kBoundary, {});
  EXPECT_FALSE(outcome.error) << (outcome.error ? outcome.error->detail : "");
  return std::move(outcome.form);
}

// A short 16-bit mono WAV with a tone: audio by content.
std::string tone_wav() {
  std::vector<std::int16_t> pcm(8000);
  for (std::size_t i = 0; i < pcm.size(); ++i) pcm[i] = static_cast<std::int16_t>(8000 * std::sin(i * 0.1));
  const auto put = [](std::string& out, std::uint32_t v, int bytes) {
    for (int i = 0; i < bytes; ++i) out += static_cast<char>((v >> (8 * i)) & 0xFF);
  };
  const auto data = static_cast<std::uint32_t>(pcm.size() * 2);
  std::string out = "RIFF";
  put(out, 36 + data, 4);
  out += "WAVEfmt ";
  put(out, 16, 4), put(out, 1, 2), put(out, 1, 2), put(out, 16000, 4), put(out, 32000, 4), put(out, 2, 2);
  put(out, 16, 2);
  out += "data";
  put(out, data, 4);
  out.append(reinterpret_cast<const char*>(pcm.data()), data);
  return out;
}

constexpr char kPngBytes[] = "\x89PNG\r\n\x1a\n\0\0\0\rIHDR\0\0\0\x01\0\0\0\x01\x08\x02\0\0\0";
const std::string kPng(kPngBytes, sizeof kPngBytes - 1);

std::string field_of(const ApiError& e) { return e.fields.empty() ? "" : e.fields[0].field; }
std::string key_of(const ApiError& e) { return e.fields.empty() ? "" : e.fields[0].messages[0].key; }

TEST(CloneForm, ANameAndOneOrMoreAudioSamples) {
  const auto wav = tone_wav();
  const auto f = form({{"name", "  Voix d’été 🎙  "}, {"files[]", wav, "a.wav"}, {"files[]", wav, "b.bin"}});
  auto read = read_clone_form(&f, nullptr);
  ASSERT_TRUE(read);
  EXPECT_EQ(read->name, "Voix d’été 🎙");
  EXPECT_EQ(read->files.size(), 2u);
  EXPECT_EQ(read->bytes, static_cast<std::int64_t>(2 * wav.size()));
}

TEST(CloneForm, NameRules) {
  const auto wav = tone_wav();
  const std::vector<std::pair<std::vector<Part>, std::string>> cases{
      {{{"files[]", wav, "a.wav"}}, "validation.required"},
      {{{"name", "   "}, {"files[]", wav, "a.wav"}}, "validation.required"},
      {{{"name", std::string(101, 'x')}, {"files[]", wav, "a.wav"}}, "validation.max_string"},
      {{{"name", "bad\xff"}, {"files[]", wav, "a.wav"}}, "validation.clean_text"},
      {{{"name", "line\x01"}, {"files[]", wav, "a.wav"}}, "validation.clean_text"},
      {{{"name", "x", "name.txt"}, {"files[]", wav, "a.wav"}}, "validation.string"},
  };
  for (const auto& [parts, key] : cases) {
    const auto f = form(parts);
    auto read = read_clone_form(&f, nullptr);
    ASSERT_FALSE(read) << key;
    EXPECT_EQ(read.error().status, 422);
    EXPECT_EQ(field_of(read.error()), "name");
    EXPECT_EQ(key_of(read.error()), key);
  }
  std::string hundred;
  for (int i = 0; i < 100; ++i) hundred += "é";
  const auto f = form({{"name", hundred}, {"files[]", wav, "a.wav"}});
  EXPECT_TRUE(read_clone_form(&f, nullptr)) << "100 characters, 200 bytes";
}

TEST(CloneForm, SamplesAreRequiredAndMustBeAudioByContent) {
  const auto wav = tone_wav();
  const auto none = form({{"name", "n"}});
  EXPECT_EQ(read_clone_form(&none, nullptr).error().reason, Reason::source_file_required);
  const auto wrong_field = form({{"name", "n"}, {"files", wav, "a.wav"}});
  EXPECT_EQ(read_clone_form(&wrong_field, nullptr).error().reason, Reason::source_file_required);
  const auto empty = form({{"name", "n"}, {"files[]", "", "a.wav"}});
  EXPECT_EQ(read_clone_form(&empty, nullptr).error().reason, Reason::source_file_required);
  const auto png = form({{"name", "n"}, {"files[]", wav, "a.wav"}, {"files[]", kPng, "b.wav"}});
  auto refused = read_clone_form(&png, nullptr);
  EXPECT_EQ(refused.error().reason, Reason::source_file_unsupported);
  EXPECT_EQ(refused.error().status, 422);
  const auto text = form({{"name", "n"}, {"files[]", "just some text, not audio", "a.mp3"}});
  EXPECT_EQ(read_clone_form(&text, nullptr).error().reason, Reason::source_file_unsupported);
  std::vector<Part> many{{"name", "n"}};
  for (int i = 0; i < 11; ++i) many.push_back({"files[]", wav, "a.wav"});
  const auto too_many = form(many);
  auto over = read_clone_form(&too_many, nullptr);
  EXPECT_EQ(field_of(over.error()), "files");
}

TEST(CloneForm, AJsonBodyIsAFormWithoutFiles) {
  const nlohmann::json named{{"name", "n"}};
  EXPECT_EQ(read_clone_form(nullptr, &named).error().reason, Reason::source_file_required);
  const nlohmann::json unnamed = nlohmann::json::object();
  EXPECT_EQ(key_of(read_clone_form(nullptr, &unnamed).error()), "validation.required");
  const nlohmann::json number{{"name", 5}};
  EXPECT_EQ(key_of(read_clone_form(nullptr, &number).error()), "validation.string");
  EXPECT_EQ(key_of(read_clone_form(nullptr, nullptr).error()), "validation.required");
}

}  // namespace
}  // namespace mediagen::voices
