#pragma once
// voice_search orders (spec 4.1.1): one uploaded audio file, one chunk, one flat price.
//
// The file is judged at request time by its content alone (engines/audio_intake.hpp: libmagic,
// then its first second decoded; never its name or Content-Type): none, empty or a header
// without samples is source_file_required, anything that is not decodable audio
// source_file_unsupported, both before any charge. The worker decodes the whole file later. Several files are refused (422 on
// input_files): a search describes one voice, and silently using one of them would hide it.
// The accepted file is kept in the object store under the order (voice_search_upload_key), so
// the retention janitor removes it with the order's other files; the database never holds it.
//
// Billing: the service's capacity unit is `searches`: the one chunk bills one token at the
// model's price per 1,000 tokens, whatever the audio's length.
//
// orders.engine_request: {"engine": "voice_search", "upload": <storage key>, "top": 1..50}.
// An order retry searches the original order's file again while retention keeps it.
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>

#include "field_errors.hpp"
#include "mediagen/core/api_error.hpp"
#include "mediagen/db/db.hpp"
#include "order_create_service.hpp"

namespace mediagen::orders {

inline constexpr std::int64_t kVoiceSearchDefaultTop = 10;
inline constexpr std::int64_t kVoiceSearchMaxTop = 50;

// "orders/<id>/input/sample": the upload of a voice_search order.
std::string voice_search_upload_key(std::string_view order_id);

// The one file a voice search uses, or why the request is refused: a domain refusal (required,
// unsupported) or a field error on input_files (several files).
struct JudgedUpload {
  std::optional<std::string_view> bytes;
  std::optional<ApiError> refusal;
};
JudgedUpload judge_voice_search_upload(std::span<const std::string_view> files, FieldErrors& errors);

// The voice_search service's first active model prices one search; `upload_key` is where the
// worker finds the file. False when the service is not offered.
bool use_voice_search_service(db::Db& db, std::int64_t top, std::string_view upload_key, NewOrder& order);

// engine_request's "upload" and "top" of a stored voice_search order (for its retry).
struct VoiceSearchRequest {
  std::string upload;
  std::int64_t top = kVoiceSearchDefaultTop;
};
std::optional<VoiceSearchRequest> read_voice_search_request(std::string_view engine_request_json);

}  // namespace mediagen::orders
