// POST /v1/audio/speech's body and the OpenAI error shape every refusal takes.
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "compat/openai_errors.hpp"
#include "compat/speech_request.hpp"

namespace mediagen::compat {
namespace {

using nlohmann::json;

json base() { return json{{"model", "provider_b/b-standard"}, {"input", "Hello."}, {"voice", "en-us-ava"}}; }

std::string refused_field(const json& body) {
  auto r = read_speech_request(body);
  EXPECT_FALSE(r.has_value()) << body.dump();
  if (r) return {};
  EXPECT_EQ(r.error().status, 422);
  return r.error().fields.empty() ? std::string("?") : r.error().fields.front().field;
}

TEST(SpeechRequest, ReadsOpenAisFieldsWithTheirDefaults) {
  auto r = read_speech_request(base());
  ASSERT_TRUE(r.has_value());
  EXPECT_EQ(r->model, "provider_b/b-standard");
  EXPECT_EQ(r->input, "Hello.");
  EXPECT_EQ(r->voice, "en-us-ava");
  EXPECT_EQ(r->format, AudioFormat::mp3);
  EXPECT_FALSE(r->speed.has_value());

  json body = base();
  body["response_format"] = "opus";
  body["speed"] = 0.25;
  body["instructions"] = "Cheerful.";
  body["stream_format"] = "audio";
  body["unknown_member"] = {1, 2};
  r = read_speech_request(body);
  ASSERT_TRUE(r.has_value());
  EXPECT_EQ(r->format, AudioFormat::opus);
  EXPECT_DOUBLE_EQ(*r->speed, 0.25);
}

TEST(SpeechRequest, EachBadFieldIsNamed) {
  auto without = [](const char* name) {
    json b = base();
    b.erase(name);
    return b;
  };
  EXPECT_EQ(refused_field(without("model")), "model");
  EXPECT_EQ(refused_field(without("input")), "input");
  auto with = [](const char* name, json value) {
    json b = base();
    b[name] = std::move(value);
    return b;
  };
  EXPECT_EQ(refused_field(with("input", 5)), "input");
  EXPECT_EQ(refused_field(with("input", "")), "input");
  EXPECT_EQ(refused_field(with("input", std::string(kMaxInputChars + 1, 'a'))), "input");
  EXPECT_EQ(refused_field(with("model", std::string(300, 'm'))), "model");
  EXPECT_EQ(refused_field(with("voice", json::array())), "voice");
  EXPECT_EQ(refused_field(with("speed", 0.2)), "speed");
  EXPECT_EQ(refused_field(with("speed", 4.01)), "speed");
  EXPECT_EQ(refused_field(with("speed", "1")), "speed");
  EXPECT_EQ(refused_field(with("response_format", "ogg")), "response_format");
  EXPECT_EQ(refused_field(with("stream_format", "sse")), "stream_format");
  EXPECT_EQ(refused_field(json::array()), "body");
}

TEST(SpeechRequest, NullMembersCountAsAbsent) {
  json body = base();
  body["speed"] = nullptr;
  body["response_format"] = nullptr;
  ASSERT_TRUE(read_speech_request(body).has_value());
}

json rendered(const ApiError& e) { return json::parse(openai_error(e, Locale::en).body); }

TEST(OpenAiErrors, ValidationIs400NamingTheParam) {
  const auto e = openai_error(ApiError::validation("speed", Message{"validation.numeric", {{"attribute", "speed"}}}), Locale::en);
  EXPECT_EQ(e.status, 400);
  const auto body = json::parse(e.body);
  EXPECT_EQ(body["error"]["type"], "invalid_request_error");
  EXPECT_EQ(body["error"]["param"], "speed");
  EXPECT_TRUE(body["error"]["code"].is_null());
  EXPECT_FALSE(body["error"]["message"].get<std::string>().empty());
}

TEST(OpenAiErrors, EveryRefusalKeepsItsMeaning) {
  struct Case {
    ApiError error;
    int status;
    const char* type;
    const char* code;
  };
  const std::vector<Case> cases = {
      {ApiError::api_key_missing(), 401, "invalid_request_error", "invalid_api_key"},
      {ApiError::api_key_expired(), 401, "invalid_request_error", "invalid_api_key"},
      {ApiError::permission_denied("orders.write"), 403, "permission_error", "missing_scope"},
      {ApiError::refused(Reason::template_access_denied), 403, "permission_error", "template_access_denied"},
      {ApiError::refused(Reason::insufficient_balance), 402, "insufficient_quota", "insufficient_balance"},
      {ApiError::refused(Reason::insufficient_allowance), 402, "insufficient_quota", "insufficient_allowance"},
      {ApiError::refused(Reason::concurrency_limit_exceeded), 429, "requests", "concurrency_limit_exceeded"},
      {ApiError::refused(Reason::limit_exceeded), 429, "requests", "limit_exceeded"},
      {ApiError::rate_limited(7), 429, "requests", "rate_limit_exceeded"},
      {ApiError::token_pool_exhausted(10, 10, 5), 429, "tokens", "token_quota_exceeded"},
      {ApiError::refused(Reason::service_maintenance), 503, "server_error", "service_maintenance"},
      {ApiError::refused(Reason::template_model_outdated), 400, "invalid_request_error", "template_model_outdated"},
      {ApiError::refused(Reason::content_blocked), 400, "invalid_request_error", "content_blocked"},
      {ApiError::refused(Reason::idempotency_key_reused), 409, "invalid_request_error", "idempotency_key_reused"},
      {model_not_found("x"), 404, "invalid_request_error", "model_not_found"},
      {voice_not_found("x"), 404, "invalid_request_error", "voice_not_found"},
      {ApiError::payload_too_large(), 413, "invalid_request_error", nullptr},
      {ApiError::internal_error("boom"), 500, "server_error", nullptr},
  };
  for (const auto& c : cases) {
    const auto out = openai_error(c.error, Locale::en);
    const auto body = json::parse(out.body);
    EXPECT_EQ(out.status, c.status) << out.body;
    EXPECT_EQ(body["error"]["type"], c.type) << out.body;
    if (c.code) {
      EXPECT_EQ(body["error"]["code"], c.code) << out.body;
    }
    EXPECT_EQ(body["error"].size(), 4u) << out.body;
    EXPECT_EQ(body.size(), 1u) << out.body;
    // Internal detail never reaches the client.
    EXPECT_EQ(out.body.find("boom"), std::string::npos);
  }
}

TEST(OpenAiErrors, AMissingKeyIsAskedForAsABearerToken) {
  const auto body = rendered(ApiError::api_key_missing());
  EXPECT_NE(body["error"]["message"].get<std::string>().find("Bearer"), std::string::npos);
}

TEST(OpenAiErrors, A429CarriesRetryAfterWhenTheWaitIsKnown) {
  const auto rate = openai_error(ApiError::rate_limited(7), Locale::en);
  bool found = false;
  for (const auto& [k, v] : rate.headers) found = found || (k == "Retry-After" && v == "7");
  EXPECT_TRUE(found);
  const auto pool = openai_error(ApiError::token_pool_exhausted(10, 10, 5), Locale::en);
  for (const auto& [k, v] : pool.headers) EXPECT_NE(k, "Retry-After");
  EXPECT_EQ(rendered(ApiError::rate_limited(7))["error"]["code"], "rate_limit_exceeded");
}

}  // namespace
}  // namespace mediagen::compat
