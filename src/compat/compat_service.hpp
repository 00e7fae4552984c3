#pragma once
// The rules of the OpenAI-compatible surface: what a `model` names, which voices it speaks with,
// what GET /v1/models and GET /v1/audio/voices list, and the order a speech request becomes.
//
// A `model` is either
//   - a template id (a uuid): the template's service, model and voice; `voice` may override the
//     voice, `speed` the speed;
//   - "<service_key>/<model_id>" (provider_b/<model>): that service's active model; or
//   - "<model_id>" alone when exactly one active voice service has an active model of that id
//     (several: 400 naming the qualified ids to choose from).
// Anything else, or a template the caller cannot see, is 404 model_not_found (403 for another
// account's template, as POST /orders answers). A voice outside the service's catalogue (and the
// caller's ready clones) is 404 voice_not_found.
// All functions run blocking SQL: call them inside BlockingPool::run.
#include <optional>
#include <string>
#include <string_view>

#include "mediagen/core/api_error.hpp"
#include "mediagen/core/time_zone.hpp"
#include "mediagen/db/db.hpp"
#include "mediagen/orders/order.hpp"
#include "mediagen/orders/create.hpp"
#include "speech_request.hpp"

namespace mediagen::compat {

struct ModelChoice {
  std::optional<TemplateId> template_id;
  std::string service_key;
  std::string model_id;  // the template's model for a template
};

Result<ModelChoice> resolve_model(db::Db& db, UserId user, std::string_view model);

// The order a request becomes: the voice checked against the service, the speed clamped into
// the model's speed range (dropped for a model without one).
Result<orders::SpeechOrder> speech_order(db::Db& db, UserId user, const SpeechRequest& request);

// GET /v1/models: {"object":"list","data":[{id, object:"model", created, owned_by, ...}]}.
std::string models_json(db::Db& db, UserId user);
// GET /v1/audio/voices[?model=M]: {"voices":[{id, name, language, service}]}; 404 for an unknown model.
Result<std::string> voices_json(db::Db& db, UserId user, std::optional<std::string_view> model);

// The id of the order an answer kept under an Idempotency-Key shows (Order JSON); empty if none.
std::string order_id_of(std::string_view order_json);

}  // namespace mediagen::compat
