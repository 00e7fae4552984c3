// A speech order without POST /orders' body (the OpenAI-compatible surface): a template, or a
// service's model with a voice. It becomes the same order through the same transaction as
// POST /orders; a template-less one keeps template_id null and its settings in the snapshot,
// which is all that order retry and the workers read.
#include <nlohmann/json.hpp>

#include "mediagen/orders/create.hpp"
#include "mediagen/core/json_text.hpp"
#include "mediagen/db/transact.hpp"
#include "mediagen/orders/order.hpp"
#include "mediagen/orders/text.hpp"
#include "mediagen/templates/templates.hpp"
#include "mediagen/orders/request.hpp"

namespace mediagen::orders {
namespace {

constexpr std::string_view kScope = "speech.create";
// The answer streams the audio as it is made: the first chunk is a lead chunk (text.hpp) of at
// most this many units, so the first audio waits for about one sentence.
constexpr std::size_t kLeadCapacity = 250;

// The tts_settings the order speaks with: the template's (or a bare mode_v1 one), with the voice
// and settings the request names laid over them. A setting the caller asked for is honoured on
// every model that has it, so the advanced flag goes with it.
nlohmann::json speech_config(const SpeechOrder& request, std::optional<std::string_view> template_config) {
  nlohmann::json config = nlohmann::json::object();
  if (template_config) config = nlohmann::json::parse(*template_config, nullptr, false);
  if (!config.is_object()) config = nlohmann::json::object();
  auto& tts = config["tts_settings"];
  if (!tts.is_object()) tts = nlohmann::json::object();
  if (!template_config) {
    tts["mode"] = "mode_v1";
    tts["model_id"] = request.model_id;
  }
  if (request.voice_id) tts["voice_id"] = *request.voice_id;
  if (request.language_code) tts["language_code"] = *request.language_code;
  const auto set = [&tts](const char* key, const auto& value) {
    if (!value) return;
    auto& settings = tts["voice_settings"];
    if (!settings.is_object()) settings = nlohmann::json::object();
    settings[key] = *value;
    tts["advanced_voice_settings"] = true;
  };
  set("speed", request.speed);
  set("stability", request.stability);
  set("similarity_boost", request.similarity_boost);
  set("use_speaker_boost", request.use_speaker_boost);
  return config;
}

// The answer carries the order's audio, so a chunk the content policy would flag cannot be
// left to the workers (POST /orders lets that chunk fail and costs nothing for it): every chunk
// is judged here, exactly as the worker judges its text, and one flagged chunk refuses the whole
// request inside the creating transaction, which then rolls back with nothing charged.
std::optional<ApiError> policy_refusal(const Caller& caller, const ChunkPlan& plan) {
  if (!caller.blocked) return std::nullopt;
  for (const auto& chunk : plan.chunks) {
    if (caller.blocked(chunk.text)) return ApiError::refused(Reason::content_blocked);
  }
  return std::nullopt;
}

}  // namespace

Result<OrderWritten> create_speech_order(db::Db& db, const Caller& caller, const SpeechOrder& request,
                                         OrderKeeper* kept) {
  const UserId user = caller.principal.user_id;
  if (kept) {
    auto finished = kept->finished(db, kScope);
    if (!finished) return finished.error();
    if (*finished == KeyUse::repeated) return OrderWritten{.replayed = true};
  }
  NewOrder order;
  order.input_text = request.text;
  // The template and the catalogue in one read transaction.
  auto setup = db::read(db, [&](db::Tx& tx) -> Result<templates::SpeechSetup> {
    std::optional<std::string> template_config;
    if (request.template_id) {
      auto stored = templates::load_template_in(db, tx, user, *request.template_id);
      if (!stored) return stored.error();
      order.template_id = TemplateId::of_row(stored->id);
      order.service_key = stored->service_key;
      template_config = stored->config_json;
    } else {
      order.service_key = request.service_key;
    }
    const std::string config = to_json_text(speech_config(request, template_config));
    return templates::validate_stored_in(db, tx, order.service_key, config, user);
  });
  if (!setup) return setup.error();
  use_speech_setup(order, *setup);
  order.chunker.lead_capacity = kLeadCapacity;
  if (request.previous_text || request.next_text || request.breaks) {
    auto engine = nlohmann::json::parse(order.engine_request, nullptr, false);
    if (engine.is_object()) {
      if (request.previous_text) engine["previous_text"] = *request.previous_text;
      if (request.next_text) engine["next_text"] = *request.next_text;
      if (request.breaks) engine["breaks"] = true;
      order.engine_request = to_json_text(engine);
    }
  }

  // The text rules of POST /orders: something left to speak once brackets are removed.
  std::optional<ApiError> shape;
  if (count_code_points(request.text) > kMaxInputChars) {
    shape = ApiError::validation(
        "input", Message{"validation.max_string", {{"attribute", "input"}, {"max", std::to_string(kMaxInputChars)}}});
  } else if (trim_spaces(strip_brackets(request.text)).empty()) {
    shape = ApiError::validation("input", Message{"validation.nothing_to_speak", {{"attribute", "input"}}});
  } else {
    order.plan = plan_chunks(order.input_text, order.chunker);
    shape = policy_refusal(caller, order.plan);
  }
  return insert_order(db, caller, order, std::move(shape), kept, kScope);
}

}  // namespace mediagen::orders
