#include "speech_request.hpp"

#include "json_fields.hpp"

#include <cmath>

#include <nlohmann/json.hpp>

#include "mediagen/core/utf8.hpp"

namespace mediagen::compat {
namespace {

using nlohmann::json;

Message attr(const char* key, std::string_view field) { return Message{key, {{"attribute", std::string(field)}}}; }

Result<std::optional<double>> read_speed(const json& body) {
  const json* value = member(body, "speed");
  if (!value) return std::optional<double>{};
  if (!value->is_number()) return ApiError::validation("speed", attr("validation.numeric", "speed"));
  const double speed = value->get<double>();
  if (!std::isfinite(speed) || speed < kMinSpeed || speed > kMaxSpeed) {
    return ApiError::validation("speed", Message{"validation.between", {{"attribute", "speed"}, {"min", "0.25"}, {"max", "4.0"}}});
  }
  return std::optional<double>{speed};
}

}  // namespace

engines::AudioOutSpec audio_out_spec(AudioFormat format) {
  using engines::AudioOutKind;
  switch (format) {
    case AudioFormat::mp3: return {AudioOutKind::mp3_as_is, 0, 0};
    case AudioFormat::wav: return {AudioOutKind::wav, kPcmRate, 0};
    case AudioFormat::pcm: return {AudioOutKind::pcm, kPcmRate, 0};
    case AudioFormat::opus: return {AudioOutKind::opus, 48000, 48};
    case AudioFormat::flac: return {AudioOutKind::flac, kPcmRate, 0};
    case AudioFormat::aac: return {AudioOutKind::aac, kPcmRate, 64};
  }
  return {};
}

std::string_view to_string(AudioFormat format) {
  switch (format) {
    case AudioFormat::mp3: return "mp3";
    case AudioFormat::wav: return "wav";
    case AudioFormat::opus: return "opus";
    case AudioFormat::flac: return "flac";
    case AudioFormat::pcm: return "pcm";
    case AudioFormat::aac: return "aac";
  }
  return "mp3";
}

std::optional<AudioFormat> parse_audio_format(std::string_view name) {
  for (auto f : {AudioFormat::mp3, AudioFormat::wav, AudioFormat::opus, AudioFormat::flac, AudioFormat::pcm, AudioFormat::aac}) {
    if (to_string(f) == name) return f;
  }
  return std::nullopt;
}

std::string_view content_type_of(AudioFormat format) {
  switch (format) {
    case AudioFormat::mp3: return "audio/mpeg";
    case AudioFormat::wav: return "audio/wav";
    case AudioFormat::opus: return "audio/ogg";
    case AudioFormat::flac: return "audio/flac";
    case AudioFormat::pcm: return "audio/pcm";
    case AudioFormat::aac: return "audio/aac";
  }
  return "application/octet-stream";
}

Result<SpeechRequest> read_speech_request(const json& body) {
  if (!body.is_object()) return ApiError::validation("body", Message{"validation.invalid_json"});
  SpeechRequest r;
  auto model = read_string(body, "model", kMaxNameChars, true);
  if (!model) return model.error();
  r.model = std::move(**model);
  auto input = read_string(body, "input", kMaxInputChars, true);
  if (!input) return input.error();
  r.input = std::move(**input);
  auto voice = read_string(body, "voice", kMaxNameChars, false);
  if (!voice) return voice.error();
  r.voice = std::move(*voice);
  auto format = read_string(body, "response_format", 16, false);
  if (!format) return format.error();
  if (*format) {
    auto parsed = parse_audio_format(**format);
    if (!parsed) {
      return ApiError::validation("response_format", Message{"validation.in", {{"attribute", "response_format"},
                                                                               {"values", "mp3, wav, opus, flac, pcm, aac"}}});
    }
    r.format = *parsed;
  }
  auto speed = read_speed(body);
  if (!speed) return speed.error();
  r.speed = *speed;
  auto instructions = read_string(body, "instructions", kMaxInputChars, false);
  if (!instructions) return instructions.error();
  auto stream_format = read_string(body, "stream_format", 16, false);
  if (!stream_format) return stream_format.error();
  if (*stream_format && **stream_format != "audio") {
    return ApiError::validation("stream_format", Message{"validation.in", {{"attribute", "stream_format"}, {"values", "audio"}}});
  }
  return r;
}

}  // namespace mediagen::compat
