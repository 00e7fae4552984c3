#include "el_catalogue.hpp"

#include <algorithm>
#include <chrono>

#include <nlohmann/json.hpp>

#include "el_errors.hpp"
#include "mediagen/account/users.hpp"
#include "mediagen/billing/usage.hpp"
#include "mediagen/core/json_text.hpp"
#include "mediagen/db/transact.hpp"
#include "mediagen/http/query.hpp"
#include "mediagen/templates/catalogue.hpp"
#include "mediagen/voices/clones.hpp"
#include "mediagen/voices/voices.hpp"

namespace mediagen::compat::elevenlabs {
namespace {

using nlohmann::ordered_json;

constexpr std::int64_t kMaxListed = 5000;
constexpr std::int64_t kMaxClonesRead = 1000;

struct ListedVoice {
  std::string voice_id;
  std::string name;
  std::string service;
  bool cloned = false;
  std::string language;
  std::string locale;
  std::string accent;
  std::string gender;
};

ListedVoice from_catalogue(const voices::Voice& v) {
  return {v.voice_id, v.name, v.service, false, v.language, v.locale, v.accent, v.gender};
}

ordered_json voice_object(const ListedVoice& v) {
  ordered_json labels{{"service", v.service}};
  if (!v.language.empty()) labels["language"] = v.language;
  if (!v.locale.empty()) labels["locale"] = v.locale;
  if (!v.accent.empty()) labels["accent"] = v.accent;
  if (!v.gender.empty()) labels["gender"] = v.gender;
  return ordered_json{{"voice_id", v.voice_id},
                      {"name", v.name},
                      {"category", v.cloned ? "cloned" : "premade"},
                      {"labels", std::move(labels)},
                      {"description", v.accent.empty() ? nullptr : ordered_json(v.accent)},
                      {"preview_url", nullptr},
                      {"is_owner", v.cloned}};
}

// The caller's ready clones whose name contains `search` (case-insensitive, ASCII), newest first.
std::vector<ListedVoice> ready_clones(db::Db& db, UserId user, std::string_view search) {
  std::string needle(search);
  std::transform(needle.begin(), needle.end(), needle.begin(), [](unsigned char c) { return std::tolower(c); });
  std::vector<ListedVoice> out;
  for (const char* service : {"provider_c", "provider_d"}) {
    for (const auto& c : voices::list_clones(db, user, service, 0, kMaxClonesRead).items) {
      if (c.status != voices::CloneStatus::ready || !c.voice_id) continue;
      std::string name = c.name;
      std::transform(name.begin(), name.end(), name.begin(), [](unsigned char ch) { return std::tolower(ch); });
      if (!needle.empty() && name.find(needle) == std::string::npos) continue;
      out.push_back({*c.voice_id, c.name, c.service, true, {}, {}, {}, {}});
    }
  }
  return out;
}

std::optional<ListedVoice> find_listed(db::Db& db, UserId user, std::string_view voice_id) {
  for (auto& c : ready_clones(db, user, "")) {
    if (c.voice_id == voice_id) return std::move(c);
  }
  auto found = voices::find_voices_by_voice_id(db, voice_id);
  if (found.empty()) return std::nullopt;
  return from_catalogue(found.front());
}

bool offers(const templates::ServiceCatalogue& s, std::string_view model_id) {
  const auto* m = s.model(model_id);
  return m && m->active;
}

Result<std::string> model_of(const templates::ServiceCatalogue& s, const std::optional<std::string>& asked) {
  if (!asked) {
    for (const auto& m : s.models) {
      if (m.active) return m.model_id;
    }
    return model_not_found(s.service.key);
  }
  std::string_view id = *asked;
  if (const auto slash = id.find('/'); slash != std::string_view::npos) {
    if (id.substr(0, slash) != s.service.key) return model_not_found(*asked);
    id = id.substr(slash + 1);
  }
  if (!offers(s, id)) return model_not_found(*asked);
  return std::string(id);
}

// ElevenLabs' speed range (0.7..1.2) laid into the model's own; nothing for a model without it.
std::optional<double> fitted(const templates::Model* model, std::string_view key, std::optional<double> value) {
  const auto* spec = model && value ? model->setting(key) : nullptr;
  if (!spec || spec->type != templates::SettingType::number) return std::nullopt;
  return std::clamp(*value, spec->min, spec->max);
}

}  // namespace

Result<orders::SpeechOrder> speech_order(db::Db& db, UserId user, std::string_view voice_id, const SpeechBody& body) {
  auto voice = find_listed(db, user, voice_id);
  if (!voice) return voice_not_found(voice_id);
  auto service = templates::find_service(db, voice->service);
  if (!service || !service->service.active || service->service.kind != templates::ServiceKind::tts) {
    return voice_not_found(voice_id);
  }
  auto model_id = model_of(*service, body.model_id);
  if (!model_id) return model_id.error();
  const templates::Model* model = service->model(*model_id);
  return orders::SpeechOrder{.service_key = voice->service,
                             .model_id = *model_id,
                             .voice_id = std::string(voice_id),
                             .speed = fitted(model, templates::kSpeed, body.settings.speed),
                             .stability = fitted(model, templates::kStability, body.settings.stability),
                             .similarity_boost = fitted(model, templates::kSimilarityBoost, body.settings.similarity_boost),
                             .use_speaker_boost = model && model->setting(templates::kUseSpeakerBoost)
                                                      ? body.settings.use_speaker_boost
                                                      : std::nullopt,
                             .language_code = body.language_code,
                             .previous_text = body.previous_text,
                             .next_text = body.next_text,
                             .breaks = true,
                             .text = body.text};
}

std::string voices_json(db::Db& db, UserId user) {
  ordered_json list = ordered_json::array();
  for (const auto& c : ready_clones(db, user, "")) list.push_back(voice_object(c));
  for (const auto& v : voices::find_voices(db, {}, 0, kMaxListed).items) list.push_back(voice_object(from_catalogue(v)));
  return to_json_text(ordered_json{{"voices", std::move(list)}});
}

Result<std::string> search_voices_json(db::Db& db, UserId user, std::string_view query_text) {
  const auto query = http::Query::parse(query_text);
  auto size = http::integer_param(query, "page_size", {.fallback = 10, .min = 1, .max = 100});
  if (!size) return size.error();
  auto offset = http::parse_integer("next_page_token", query.get("next_page_token").value_or(""),
                                    {.fallback = 0, .min = 0, .max = 1'000'000});
  if (!offset) return offset.error();
  voices::VoiceFilter filter;
  const auto text = [&query](std::string_view name) -> std::optional<std::string> {
    auto v = query.get(name);
    return v && !v->empty() ? std::optional<std::string>(*v) : std::nullopt;
  };
  filter.search = text("search");
  filter.gender = text("gender");
  filter.language = text("language");
  const auto category = text("category");
  std::vector<ListedVoice> clones;
  if (category != "premade" && !filter.gender && !filter.language) clones = ready_clones(db, user, filter.search.value_or(""));
  const auto own = static_cast<std::int64_t>(clones.size());
  ordered_json list = ordered_json::array();
  for (auto i = *offset; i < own && i < *offset + *size; ++i) list.push_back(voice_object(clones[static_cast<std::size_t>(i)]));
  std::int64_t total = own;
  if (category != "cloned") {
    const auto left = *size - static_cast<std::int64_t>(list.size());
    const auto slice = voices::find_voices(db, filter, std::max<std::int64_t>(0, *offset - own), std::max<std::int64_t>(left, 0));
    for (const auto& v : slice.items) list.push_back(voice_object(from_catalogue(v)));
    total += slice.total;
  }
  const auto next = *offset + static_cast<std::int64_t>(list.size());
  const bool more = next < total;
  return to_json_text(ordered_json{{"voices", std::move(list)},
                                   {"has_more", more},
                                   {"total_count", total},
                                   {"next_page_token", more ? ordered_json(std::to_string(next)) : ordered_json(nullptr)}});
}

Result<std::string> voice_json(db::Db& db, UserId user, std::string_view voice_id) {
  auto voice = find_listed(db, user, voice_id);
  if (!voice) return voice_not_found(voice_id);
  return to_json_text(voice_object(*voice));
}

std::string models_json(db::Db& db) {
  ordered_json list = ordered_json::array();
  auto services = db::read(db, [&](db::Tx& tx) { return templates::load_services(db, tx, /*voice_services_only=*/true); });
  auto names = db::read(db, [&](db::Tx& tx) { return templates::language_names(db, tx, Locale::en); });
  const auto name_of = [&names](const std::string& code) {
    for (const auto& n : names) {
      if (n.code == code) return n.name;
    }
    return code;
  };
  for (const auto& s : services) {
    if (!s.service.active || s.service.kind != templates::ServiceKind::tts) continue;
    for (const auto& m : s.models) {
      if (!m.active) continue;
      ordered_json languages = ordered_json::array();
      for (const auto& code : m.languages.value_or(s.voice_languages)) {
        languages.push_back({{"language_id", code}, {"name", name_of(code)}});
      }
      list.push_back({{"model_id", s.service.key + "/" + m.model_id},
                      {"name", m.name},
                      {"description", s.service.name},
                      {"can_do_text_to_speech", true},
                      {"can_do_voice_conversion", false},
                      {"can_use_speaker_boost", m.setting(templates::kUseSpeakerBoost) != nullptr},
                      {"maximum_text_length_per_request", kMaxInputChars},
                      {"languages", std::move(languages)}});
    }
  }
  return to_json_text(list);
}

std::string subscription_json(db::Db& db, UserId user) {
  const auto profile = account::find_profile(db, user);
  const auto usage = billing::read_usage(db, user, Locale::en);
  const auto clones = voices::clone_quotas(db, user);
  std::int64_t used = 0;
  std::int64_t limit = 0;
  std::optional<std::int64_t> reset;
  for (const auto& r : usage) {
    if (r.type != billing::LimitType::quota || r.service_code) continue;
    used = r.consumed;
    limit = r.ceiling.value_or(0);
    if (r.reset_at) reset = std::chrono::duration_cast<std::chrono::seconds>(r.reset_at->time_since_epoch()).count();
    break;
  }
  std::int64_t voice_limit = 0;
  std::int64_t voices_used = 0;
  for (const auto& q : clones.services) {
    voice_limit = std::max(voice_limit, q.limit);
    voices_used += q.used;
  }
  const bool live = profile && profile->plan;
  ordered_json out{{"tier", live ? profile->plan->code : std::string("free")},
                   {"character_count", used},
                   {"character_limit", limit},
                   {"max_credit_limit_extension", 0},
                   {"can_extend_character_limit", false},
                   {"allowed_to_extend_character_limit", false},
                   {"next_character_count_reset_unix", reset ? ordered_json(*reset) : ordered_json(nullptr)},
                   {"voice_slots_used", voices_used},
                   {"professional_voice_slots_used", 0},
                   {"professional_voice_slots_used_in_workspace", 0},
                   {"voice_limit", voice_limit},
                   {"voice_add_edit_counter", 0},
                   {"professional_voice_limit", 0},
                   {"can_extend_voice_limit", false},
                   {"can_use_instant_voice_cloning", true},
                   {"can_use_professional_voice_cloning", false},
                   {"current_overage", {{"amount", "0"}, {"currency", "usd"}}},
                   {"status", live ? "active" : "free"},
                   {"open_invoices", ordered_json::array()},
                   {"has_open_invoices", false}};
  if (profile) {
    out["balance_minor"] = profile->balance.value;
    out["balance_currency"] = profile->asset.code;
  }
  return to_json_text(out);
}

}  // namespace mediagen::compat::elevenlabs
