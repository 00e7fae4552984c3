#pragma once
// SQL of the templates table. Ids are passed as text and cast to uuid in SQL; callers check
// the format first (a malformed id never reaches PostgreSQL).
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "mediagen/db/pg.hpp"
#include "mediagen/templates/templates.hpp"

namespace mediagen::templates::store {

struct Row {
  Template tpl;
  bool deleted = false;
};

// `lock`: FOR UPDATE, so an update or delete sees no concurrent change of the same row.
std::optional<Row> find(db::Db& db, db::Tx& tx, std::string_view id, bool lock);
Template insert(db::Db& db, db::Tx& tx, UserId user, const std::string& service_key,
                const std::string& name, const std::string& config_json);
std::optional<Template> update(db::Db& db, db::Tx& tx, std::string_view id,
                               const std::string& service_key, const std::string& name,
                               const std::string& config_json);
bool soft_delete(db::Db& db, db::Tx& tx, std::string_view id);
std::vector<Template> list(db::Db& db, db::Tx& tx, UserId user);
std::vector<Template> page(db::Db& db, db::Tx& tx, UserId user, std::int64_t offset,
                           std::int64_t limit);
std::int64_t count(db::Db& db, db::Tx& tx, UserId user);

}  // namespace mediagen::templates::store
