// SQL of the operator's engine choice (service_engine.hpp).
#include <nlohmann/json.hpp>

#include "mediagen/db/pg.hpp"
#include "mediagen/db/transact.hpp"
#include "mediagen/templates/service_engine.hpp"

namespace mediagen::templates {
namespace {

ServiceEngine engine_from_row(const pqxx::row& r) {
  ServiceEngine e;
  e.service = r[0].as<std::string>();
  e.service_kind = parse_service_kind(r[1].as<std::string>()).value_or(ServiceKind::tts);
  e.engine = r[2].as<std::string>();
  if (is_upstream_engine(e.engine)) e.upstream = upstream_from_json(r[3].as<std::string>());
  return e;
}

boost::system::result<ServiceEngine, std::string> refusal(std::string why) {
  return {boost::system::in_place_error, std::move(why)};
}

}  // namespace

boost::system::result<ServiceEngine, std::string> set_service_engine(db::Db& db, EngineChoice choice) {
  while (choice.upstream.url.ends_with('/')) choice.upstream.url.pop_back();
  return db::transact(db, [&](db::Tx& tx) -> boost::system::result<ServiceEngine, std::string> {
    auto rows = tx.exec_params("SELECT kind FROM services WHERE key = $1 FOR UPDATE", choice.service);
    db.count();
    if (rows.empty()) return refusal("no service with key " + choice.service);
    const auto kind = parse_service_kind(rows[0][0].as<std::string>()).value_or(ServiceKind::tts);
    if (auto refused = check_engine_choice(kind, choice)) return refusal(*refused);
    const bool upstream = is_upstream_engine(choice.kind);
    const std::string engine = upstream ? choice.kind : std::string(embedded_engine(kind));
    std::optional<std::string> json;
    if (upstream) json = upstream_to_json(choice.upstream);
    tx.exec_params(
        "UPDATE services SET engine = $2, upstream = $3::jsonb, engine_by_operator = $4, updated_at = now()"
        " WHERE key = $1",
        choice.service, engine, json, upstream);
    db.count();
    ServiceEngine out{choice.service, kind, engine, std::nullopt};
    if (upstream) out.upstream = choice.upstream;
    return out;
  });
}

std::optional<ServiceEngine> load_service_engine(db::Db& db, std::string_view service) {
  return db::read(db, [&](db::Tx& tx) -> std::optional<ServiceEngine> {
    auto rows = tx.exec_params("SELECT key, kind, engine, COALESCE(upstream::text, '') FROM services WHERE key = $1",
                               std::string(service));
    db.count();
    if (rows.empty()) return std::nullopt;
    return engine_from_row(rows[0]);
  });
}

std::vector<ServiceEngine> upstream_services(db::Db& db) {
  return db::read(db, [&](db::Tx& tx) {
    std::vector<ServiceEngine> out;
    for (const auto& r : tx.exec("SELECT key, kind, engine, COALESCE(upstream::text, '') FROM services"
                                 " WHERE engine IN ('openai', 'elevenlabs') ORDER BY position, id")) {
      out.push_back(engine_from_row(r));
    }
    db.count();
    return out;
  });
}

}  // namespace mediagen::templates
