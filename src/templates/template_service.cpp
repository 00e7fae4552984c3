// Template rules: ownership, validation against the current catalogue, the merge-patch update.
#include <nlohmann/json.hpp>

#include "mediagen/templates/validation.hpp"
#include "mediagen/db/settled.hpp"
#include "template_store.hpp"

namespace mediagen::templates {
namespace {

// The catalogue as seen from one transaction.
class SqlCatalogue final : public CatalogueView {
 public:
  // `owner`: whose ready voice clones count as voices too.
  SqlCatalogue(db::Db& db, db::Tx& tx, std::optional<UserId> owner, ServiceCacheView kept = {})
      : db_(db), tx_(tx), owner_(owner), kept_(kept) {}
  std::optional<ServiceCatalogue> service(std::string_view key) override { return load_service(db_, tx_, key, kept_); }
  std::optional<CatalogueVoice> voice(const ServiceCatalogue& service, std::string_view voice_id) override {
    return find_voice(db_, tx_, service.service.id, voice_id, owner_, kept_);
  }

 private:
  db::Db& db_;
  db::Tx& tx_;
  std::optional<UserId> owner_;
  ServiceCacheView kept_;
};

ApiError access_denied() { return ApiError::refused(Reason::template_access_denied); }

// The owner check of every use of a template: missing or deleted is 404, another account's 403.
Result<Template> owned(std::optional<store::Row> row, UserId user) {
  if (auto refusal = template_use_refusal(row ? std::optional(row->tpl.user_id) : std::nullopt,
                                          row && row->deleted, user)) {
    return *refusal;
  }
  return std::move(row->tpl);
}

std::string describe(const ApiError& e) {
  std::string out;
  for (const auto& f : e.fields) {
    if (!out.empty()) out += ", ";
    out += f.field;
    for (const auto& m : f.messages) out += " " + m.key;
  }
  return out;
}

}  // namespace

std::optional<ApiError> template_use_refusal(std::optional<UserId> owner, bool deleted, UserId user) {
  if (!owner || deleted) return ApiError::not_found();
  if (*owner != user) return access_denied();
  return std::nullopt;
}

Result<Template> load_template(db::Db& db, UserId user, const TemplateId& template_id) {
  return db::read(db, [&](db::Tx& tx) { return load_template_in(db, tx, user, template_id); });
}

Result<Template> load_template_in(db::Db& db, db::Tx& tx, UserId user, const TemplateId& template_id) {
  return owned(store::find(db, tx, template_id.str(), false), user);
}

Result<TemplateSetup> load_template_setup(db::Db& db, UserId user, const TemplateId& template_id) {
  return db::read(db, [&](db::Tx& tx) -> Result<TemplateSetup> {
    auto stored = load_template_in(db, tx, user, template_id);
    if (!stored) return stored.error();
    auto setup = validate_stored_in(db, tx, stored->service_key, stored->config_json, stored->user_id);
    return TemplateSetup{std::move(*stored), std::move(setup)};
  });
}

Result<SpeechSetup> validate_stored(db::Db& db, std::string_view service_key, std::string_view config_json,
                                    std::optional<UserId> owner) {
  return db::read(db, [&](db::Tx& tx) { return validate_stored_in(db, tx, service_key, config_json, owner); });
}

Result<SpeechSetup> validate_stored_in(db::Db& db, db::Tx& tx, std::string_view service_key,
                                       std::string_view config_json, std::optional<UserId> owner,
                                       ServiceCacheView kept) {
  nlohmann::json doc = nlohmann::json::object();
  doc["service_key"] = std::string(service_key);
  auto config = nlohmann::json::parse(config_json, nullptr, false);
  doc["config"] = config.is_discarded() ? nlohmann::json(nullptr) : std::move(config);
  SqlCatalogue catalogue(db, tx, owner, kept);
  auto checked = validate_template(doc, catalogue, NameRule::ignored);
  if (!checked) {
    ApiError e = ApiError::refused(Reason::template_model_outdated);
    e.internal = "stored " + std::string(service_key) +
                 " settings fail the current catalogue: " + describe(checked.error());
    return e;
  }
  return std::move(checked->setup);
}

Result<SpeechSetup> validate_stored(db::Db& db, const Template& stored) {
  return validate_stored(db, stored.service_key, stored.config_json, stored.user_id);
}

Result<Template> create_template(db::Db& db, UserId user, const nlohmann::json& body) {
  return db::transact_settled(db, [&](db::Tx& tx) -> Result<Template> {
    SqlCatalogue catalogue(db, tx, user);
    auto checked = validate_template(body, catalogue, NameRule::required);
    if (!checked) return checked.error();
    return store::insert(db, tx, user, checked->setup.service.key, checked->name, checked->setup.config_json);
  });
}

Result<Template> update_template(db::Db& db, UserId user, const TemplateId& template_id, const nlohmann::json& patch) {
  return db::transact_settled(db, [&](db::Tx& tx) -> Result<Template> {
    auto current = owned(store::find(db, tx, template_id.str(), /*lock=*/true), user);
    if (!current) return current.error();
    if (!patch.is_object()) return ApiError::validation("body", Message{"validation.object", {{"attribute", "body"}}});
    const nlohmann::json doc = patched_document(*current, patch);
    SqlCatalogue catalogue(db, tx, user);
    auto checked = validate_template(doc, catalogue, NameRule::required);
    if (!checked) return checked.error();
    auto updated = store::update(db, tx, template_id.str(), checked->setup.service.key, checked->name,
                                 checked->setup.config_json);
    if (!updated) return ApiError::not_found();  // cannot happen under the row lock; kept for safety
    return std::move(*updated);
  });
}

Result<void> delete_template(db::Db& db, UserId user, const TemplateId& template_id) {
  return db::transact_settled(db, [&](db::Tx& tx) -> Result<void> {
    auto current = owned(store::find(db, tx, template_id, /*lock=*/true), user);
    if (!current) return current.error();
    store::soft_delete(db, tx, template_id);
    return {};
  });
}

std::vector<Template> list_templates(db::Db& db, UserId user) {
  return db::read(db, [&](db::Tx& tx) { return store::list(db, tx, user); });
}

TemplatePage browse_templates(db::Db& db, UserId user, std::int64_t page, std::int64_t per_page) {
  return db::transact(db, [&](db::Tx& tx) {
    TemplatePage out;
    out.page = page;
    out.per_page = per_page;
    out.total = store::count(db, tx, user);
    const std::int64_t pages = (out.total + per_page - 1) / per_page;
    // Beyond the last page: an empty page (the offset is never computed, so it cannot overflow).
    if (page - 1 < pages) out.items = store::page(db, tx, user, (page - 1) * per_page, per_page);
    return out;
  });
}

}  // namespace mediagen::templates
