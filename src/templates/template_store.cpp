#include "template_store.hpp"
#include "mediagen/db/fields.hpp"
#include "mediagen/db/pg.hpp"

namespace mediagen::templates::store {
namespace {

#define MG_TEMPLATE_COLUMNS                                                                   \
  "id::text, user_id, service_key, name, config::text,"                                      \
  " (extract(epoch from created_at) * 1000000)::bigint, (extract(epoch from updated_at) * 1000000)::bigint"

const db::Statement kFind{"templates_find",
                          "SELECT " MG_TEMPLATE_COLUMNS ", deleted_at IS NOT NULL FROM templates WHERE id = $1::uuid"};
const db::Statement kFindLocked{
    "templates_find_locked",
    "SELECT " MG_TEMPLATE_COLUMNS ", deleted_at IS NOT NULL FROM templates WHERE id = $1::uuid FOR UPDATE"};
const db::Statement kInsert{"templates_insert",
                            "INSERT INTO templates (user_id, service_key, name, config) VALUES ($1, $2, $3, $4::jsonb)"
                            " RETURNING " MG_TEMPLATE_COLUMNS};
const db::Statement kUpdate{"templates_update",
                            "UPDATE templates SET service_key = $2, name = $3, config = $4::jsonb, updated_at = now()"
                            " WHERE id = $1::uuid AND deleted_at IS NULL RETURNING " MG_TEMPLATE_COLUMNS};
const db::Statement kDelete{"templates_delete",
                            "UPDATE templates SET deleted_at = now(), updated_at = now()"
                            " WHERE id = $1::uuid AND deleted_at IS NULL"};
// Newest first; the id breaks ties so pages never overlap.
const db::Statement kList{"templates_list",
                          "SELECT " MG_TEMPLATE_COLUMNS " FROM templates WHERE user_id = $1 AND deleted_at IS NULL"
                          " ORDER BY created_at DESC, id DESC"};
const db::Statement kPage{"templates_page",
                          "SELECT " MG_TEMPLATE_COLUMNS " FROM templates WHERE user_id = $1 AND deleted_at IS NULL"
                          " ORDER BY created_at DESC, id DESC LIMIT $2 OFFSET $3"};
const db::Statement kCount{"templates_count",
                           "SELECT count(*) FROM templates WHERE user_id = $1 AND deleted_at IS NULL"};

Template from_row(const pqxx::row& r) {
  Template t;
  t.id = r[0].as<std::string>();
  t.user_id = UserId{r[1].as<std::int64_t>()};
  t.service_key = r[2].as<std::string>();
  t.name = r[3].as<std::string>();
  t.config_json = r[4].as<std::string>();
  t.created_at = db::time_from_micros(r[5]);
  t.updated_at = db::time_from_micros(r[6]);
  return t;
}

}  // namespace

std::optional<Row> find(db::Db& db, db::Tx& tx, std::string_view id, bool lock) {
  auto rows = db.exec(tx, lock ? kFindLocked : kFind, std::string(id));
  if (rows.empty()) return std::nullopt;
  return Row{from_row(rows[0]), rows[0][7].as<bool>()};
}

Template insert(db::Db& db, db::Tx& tx, UserId user, const std::string& service_key,
                const std::string& name, const std::string& config_json) {
  return from_row(db.exec(tx, kInsert, user.value, service_key, name, config_json)[0]);
}

std::optional<Template> update(db::Db& db, db::Tx& tx, std::string_view id,
                               const std::string& service_key, const std::string& name,
                               const std::string& config_json) {
  auto rows = db.exec(tx, kUpdate, std::string(id), service_key, name, config_json);
  if (rows.empty()) return std::nullopt;
  return from_row(rows[0]);
}

bool soft_delete(db::Db& db, db::Tx& tx, std::string_view id) {
  return db.exec(tx, kDelete, std::string(id)).affected_rows() > 0;
}

std::vector<Template> list(db::Db& db, db::Tx& tx, UserId user) {
  std::vector<Template> out;
  for (const auto& r : db.exec(tx, kList, user.value)) out.push_back(from_row(r));
  return out;
}

std::vector<Template> page(db::Db& db, db::Tx& tx, UserId user, std::int64_t offset,
                           std::int64_t limit) {
  std::vector<Template> out;
  for (const auto& r : db.exec(tx, kPage, user.value, limit, offset)) out.push_back(from_row(r));
  return out;
}

std::int64_t count(db::Db& db, db::Tx& tx, UserId user) {
  return db.exec(tx, kCount, user.value)[0][0].as<std::int64_t>();
}

}  // namespace mediagen::templates::store
