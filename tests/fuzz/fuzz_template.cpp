// Templates (src/templates/validation.cpp): POST /templates, PUT/PATCH (the stored template with
// the body applied as a JSON merge patch, patched_document) and the check of a stored config an
// order or preview runs (validate_stored), against the demo catalogue held in memory. Input:
// line 1 a stored config (JSON text, as the row holds it), line 2 the stored name, the rest the
// request body as the body stage reads it. Properties:
//   - nothing crashes, leaks or throws;
//   - every refusal has the spec's shape in both locales, with field paths under the document;
//   - a template that passes has a trimmed, non-empty name of valid UTF-8 within 255 code points,
//     a voice of the catalogue, settings only from its model's schema and within its bounds, and
//     a normalised config that validates again to itself (normalising is idempotent);
//   - the merge patch is idempotent (applying the body twice equals applying it once), and an
//     empty patch leaves a valid template exactly as it was.
#include <string>

#include <nlohmann/json.hpp>

#include "../unit/templates/catalogue_fixture.hpp"
#include "fuzz_error_shape.hpp"
#include "fuzz_support.hpp"
#include "http/stages/json_body.hpp"
#include "mediagen/core/json_text.hpp"
#include "mediagen/core/utf8.hpp"
#include "mediagen/templates/validation.hpp"

namespace {

using namespace mediagen;
using namespace mediagen::templates;
using json = nlohmann::json;

// A refusal of the template's reading names only the template's fields. The body's own (text that
// is no text, say) names where in the body, which may be any key of it.
void check_refusal(const ApiError& e, bool of_template = true) {
  fuzz::check_error_shape(e);
  FUZZ_CHECK(e.status == 422);
  if (!of_template) return;
  for (const auto& f : e.fields) {
    const bool known = f.field == "body" || f.field == "name" || f.field == "service_key" || f.field == "config" ||
                       f.field.rfind("config.tts_settings", 0) == 0;
    FUZZ_CHECK(known);
  }
}

void check_bounds(const SpeechSetup& s) {
  const auto in = [&](std::string_view key, const std::optional<double>& v) {
    if (!v) return;
    const SettingSpec* spec = s.model.setting(key);
    FUZZ_CHECK(spec != nullptr);
    FUZZ_CHECK(*v >= spec->min && *v <= spec->max);
  };
  in(kStability, s.requested.stability);
  in(kSimilarityBoost, s.requested.similarity_boost);
  in(kSpeed, s.requested.speed);
  in(kStability, s.effective.stability);
  in(kSimilarityBoost, s.effective.similarity_boost);
  in(kSpeed, s.effective.speed);
}

// A template that passed: its parts, and its normalised config as a fixed point.
void check_valid(const ValidatedTemplate& t, CatalogueView& catalogue, NameRule rule) {
  if (rule == NameRule::required) {
    FUZZ_CHECK(!t.name.empty() && is_valid_utf8(t.name) && count_code_points(t.name) <= kMaxTemplateNameChars);
    FUZZ_CHECK(t.name.front() != ' ' && t.name.back() != ' ');
  }
  const SpeechSetup& s = t.setup;
  FUZZ_CHECK(s.service.kind == ServiceKind::tts && s.model.active);
  FUZZ_CHECK(catalogue.voice(ServiceCatalogue{.service = s.service}, s.voice.voice_id).has_value());
  check_bounds(s);
  const json config = json::parse(s.config_json, nullptr, false);
  FUZZ_CHECK(config.is_object() && config.size() == 1 && config["tts_settings"].is_object());
  for (const auto& [key, value] : config["tts_settings"]["voice_settings"].items()) {
    FUZZ_CHECK(s.model.setting(key) != nullptr);
    (void)value;
  }
  const json again_doc{{"service_key", s.service.key}, {"name", t.name.empty() ? "x" : t.name}, {"config", config}};
  auto again = validate_template(again_doc, catalogue, rule);
  FUZZ_CHECK(again.has_value());
  FUZZ_CHECK(again->setup.config_json == s.config_json);
  FUZZ_CHECK(again->setup.effective == s.effective);
}

void check_document(const json& doc, CatalogueView& catalogue, NameRule rule) {
  auto checked = validate_template(doc, catalogue, rule);
  if (!checked) {
    check_refusal(checked.error());
    return;
  }
  check_valid(*checked, catalogue, rule);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  fuzz::Lines lines{fuzz::as_text(data, size)};
  std::string_view stored_config, stored_name;
  if (!lines.next(stored_config) || !lines.next(stored_name)) return 0;
  // A stored name is one that a write accepted (valid UTF-8, trimmed, bounded); a PUT or PATCH that
  // leaves it alone carries it into the document checked below.
  if (!is_valid_utf8(stored_name)) return 0;
  const std::string_view body_text = lines.rest.data() ? lines.rest : std::string_view{};
  static test::FakeCatalogue catalogue;  // read only: built once

  // An order's or a preview's check of the stored row (template_service.cpp validate_stored_in).
  json stored_doc = json::object();
  stored_doc["service_key"] = "provider_a";
  auto stored = json::parse(stored_config, nullptr, false);
  stored_doc["config"] = stored.is_discarded() ? json(nullptr) : stored;
  check_document(stored_doc, catalogue, NameRule::ignored);

  auto body = http::stages::parse_json_body(body_text, "application/json");
  if (!body) {
    check_refusal(body.error(), false);
    return 0;
  }
  // POST /templates.
  check_document(*body, catalogue, NameRule::required);

  // PUT and PATCH on the stored template (update_template refuses a body that is no object).
  if (!body->is_object()) return 0;
  const Template current{.service_key = "provider_a", .name = std::string(stored_name),
                         .config_json = std::string(stored_config)};
  const json patched = patched_document(current, *body);
  json twice = patched;
  twice.merge_patch(*body);
  FUZZ_CHECK(twice == patched);
  check_document(patched, catalogue, NameRule::required);

  // A template as stored after a successful write is left alone by an empty patch.
  if (auto valid = validate_template(patched, catalogue, NameRule::required)) {
    const Template written{.service_key = valid->setup.service.key, .name = valid->name,
                           .config_json = valid->setup.config_json};
    auto same = validate_template(patched_document(written, json::object()), catalogue, NameRule::required);
    FUZZ_CHECK(same.has_value() && same->name == valid->name && same->setup.config_json == valid->setup.config_json);
  }
  return 0;
}
