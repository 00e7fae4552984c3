#pragma once
// What the ElevenLabs-compatible surface reads: voices (the catalogues' and the caller's ready
// clones), models, the subscription, and the speech order a request becomes.
//
// A voice_id is a catalogue voice's provider-format id or a ready clone's voice_id; it names its
// service. A model_id is "<service>/<model>" (what GET /v1/models lists) or a model id of the
// voice's service; absent, the service's first active model. All functions run blocking SQL:
// call them inside BlockingPool::run.
#include <optional>
#include <string>
#include <string_view>

#include "el_request.hpp"
#include "mediagen/core/api_error.hpp"
#include "mediagen/core/ids.hpp"
#include "mediagen/db/db.hpp"
#include "mediagen/orders/create.hpp"

namespace mediagen::compat::elevenlabs {

// 404 voice_not_found / model_not_found as above.
Result<orders::SpeechOrder> speech_order(db::Db& db, UserId user, std::string_view voice_id, const SpeechBody& body);

// GET /v1/voices: {"voices": [Voice...]}, the caller's ready clones first.
std::string voices_json(db::Db& db, UserId user);
// GET /v2/voices?search=&page_size=1..100&next_page_token=&gender=&language=&category=premade|cloned:
// {"voices", "has_more", "total_count", "next_page_token"}; 422 for a bad page_size or token.
Result<std::string> search_voices_json(db::Db& db, UserId user, std::string_view query);
// GET /v1/voices/{voice_id}: one Voice; 404 voice_not_found.
Result<std::string> voice_json(db::Db& db, UserId user, std::string_view voice_id);

// GET /v1/models: [{model_id, name, description, can_do_text_to_speech, languages: [{language_id, name}], ...}].
std::string models_json(db::Db& db);

// GET /v1/user/subscription: ElevenLabs' Subscription from the live plan's token quota, the
// clone slots and the balance.
std::string subscription_json(db::Db& db, UserId user);

}  // namespace mediagen::compat::elevenlabs
