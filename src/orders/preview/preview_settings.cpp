#include "preview_settings.hpp"

#include "mediagen/orders/request.hpp"

#include "mediagen/billing/ledger.hpp"
#include "mediagen/db/transact.hpp"
#include "mediagen/templates/templates.hpp"

namespace mediagen::orders {

namespace {

void set_currency(db::Db& db, PreviewSettings& s) {
  auto asset = db::read(db, [&](db::Tx& tx) { return billing::default_asset(db, tx); });
  s.currency_code = asset.code;
  s.currency_precision = asset.precision;
}

}  // namespace

Result<PreviewSettings> resolve_preview_settings(db::Db& db, UserId user, const std::optional<TemplateId>& template_id,
                                                 TaskType task_type, GenerationMode mode,
                                                 const GenerativeParams& generative, std::string_view text) {
  PreviewSettings s;
  s.task_type = task_type;
  s.chunker.mode = mode;
  if (template_id) {
    auto loaded = templates::load_template_setup(db, user, *template_id);
    if (!loaded) return loaded.error();
    const auto& setup = loaded->setup;
    if (!setup) return setup.error();
    s.template_id = loaded->stored.id;
    s.service_key = setup->service.key;
    s.model_id = setup->model.model_id;
    s.fingerprint = setup->service.key + "\n" + setup->config_json;
    s.chunker.capacity = static_cast<std::size_t>(setup->model.capacity);
    s.chunker.unit = setup->model.capacity_unit;
    s.price_per_1k_minor = setup->model.price_per_1k_minor;
  } else {
    // sfx, music, voice_search: no template; the prompt is one chunk of the service (of each
    // file it makes, for sfx and music).
    s.service_key = std::string(task_type_name(s.task_type));
    s.chunker.capacity = kPromptCapacity;
    s.chunker.unit = CapacityUnit::chars;
    s.chunker.mode = GenerationMode::ordinary;
    if (is_single_shot(s.task_type)) {
      s.chunker = generative_chunker(s.task_type);
      s.duration_ms = generative_duration_ms(s.task_type, text, generative);
      s.variants = generative.variants;
      // What decides the plan beyond the text: the files' length and count.
      s.fingerprint = std::to_string(s.duration_ms) + "ms x" + std::to_string(s.variants);
    }
    if (auto service = templates::find_service(db, s.service_key); service && !service->models.empty()) {
      s.model_id = service->models.front().model_id;
      s.price_per_1k_minor = service->models.front().price_per_1k_minor;
    }
  }
  set_currency(db, s);
  return s;
}

}  // namespace mediagen::orders
