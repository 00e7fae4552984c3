// `admin service engine` and `admin service sync`: JSON on stdout, one error line otherwise.
#include "admin_upstream.hpp"

#include "admin_output.hpp"
#include "mediagen/app/database.hpp"
#include "mediagen/db/transact.hpp"
#include "mediagen/engines/upstream.hpp"
#include "mediagen/voices/catalogue_builder.hpp"
#include "mediagen/voices/voices.hpp"
#include "settings.hpp"

namespace mediagen::app {
namespace {

std::vector<std::string> split_commas(const std::string& list) {
  std::vector<std::string> out;
  std::string item;
  for (const char c : list + ",") {
    if (c == ',') {
      if (!item.empty()) out.push_back(item);
      item.clear();
    } else if (c != ' ') {
      item += c;
    }
  }
  return out;
}

// The stored configuration as the commands print it: where the key is, never what it is.
nlohmann::ordered_json engine_json(const templates::ServiceEngine& e) {
  nlohmann::ordered_json out{{"service", e.service},
                             {"service_kind", templates::to_string(e.service_kind)},
                             {"engine", e.engine}};
  if (e.upstream) {
    out["url"] = e.upstream->url;
    out["model"] = e.upstream->model;
    out["api_key_env"] = e.upstream->key_env.empty() ? nlohmann::ordered_json() : nlohmann::ordered_json(e.upstream->key_env);
    out["api_key_file"] = e.upstream->key_file.empty() ? nlohmann::ordered_json() : nlohmann::ordered_json(e.upstream->key_file);
    out["voices"] = e.upstream->voices;
  }
  return out;
}

}  // namespace

int admin_service_engine(const Config& config, const ServiceEngineArgs& args) {
  Database database(config);
  templates::EngineChoice choice{args.service, args.kind,
                                 {args.url, args.model, args.key_env, args.key_file, split_commas(args.voices)}};
  auto stored = templates::set_service_engine(database.db(), std::move(choice));
  if (!stored) return fail(stored.error());
  print(engine_json(*stored));
  return 0;
}

namespace {

using Synced = boost::system::result<nlohmann::ordered_json, std::string>;
Synced refusal(std::string why) { return {boost::system::in_place_error, std::move(why)}; }
Synced done(nlohmann::ordered_json j) { return {boost::system::in_place_value, std::move(j)}; }

Synced sync_upstream_voices(const Config& config, db::Db& db,
                                                                                const templates::ServiceEngine& e) {
  if (!e.upstream) return refusal("service " + e.service + " is not served by an upstream engine");
  if (e.service_kind != templates::ServiceKind::tts) return done({{"service", e.service}, {"voices", 0}});
  engines::Upstreams upstreams(upstream_options(config));
  engines::UpstreamTarget target{engines::parse_upstream_kind(e.engine).value_or(engines::UpstreamKind::openai),
                                 e.service, e.upstream->url, e.upstream->model, e.upstream->key_env,
                                 e.upstream->key_file, {}};
  auto fetched = upstreams.voices(target);
  if (!fetched) return refusal("cannot fetch the voices of " + e.service + ": " + fetched.error().detail);
  std::vector<voices::ListedVoice> listed;
  for (const auto& v : *fetched) listed.push_back({v.id, v.name, v.language, v.gender});
  const bool configured = listed.empty();
  if (configured) {
    for (const auto& id : e.upstream->voices) listed.push_back({id, id, {}, {}});
  }
  const auto seeds = voices::upstream_voice_seeds(e.service, listed);
  if (seeds.empty()) return refusal("the upstream of " + e.service + " lists no voices and none are configured (--voices)");
  const auto report = db::transact(db, [&](db::Tx& tx) { return voices::seed_voices(db, tx, seeds); });
  nlohmann::ordered_json ids = nlohmann::ordered_json::array();
  for (const auto& s : seeds) ids.push_back({{"voice_id", s.voice_id}, {"upstream_voice_id", s.upstream_voice_id}});
  return done({{"service", e.service},
               {"source", configured ? "configured" : "upstream"},
               {"voices", ids},
               {"deactivated", report.deactivated}});
}

}  // namespace

nlohmann::ordered_json sync_all_upstream_voices(const Config& config, db::Db& db) {
  nlohmann::ordered_json out = nlohmann::ordered_json::object();
  for (const auto& e : templates::upstream_services(db)) {
    auto synced = sync_upstream_voices(config, db, e);
    out[e.service] = synced ? *synced : nlohmann::ordered_json{{"error", synced.error()}};
  }
  return out;
}

std::vector<voices::VoiceSeed> without_upstream_services(db::Db& db, std::vector<voices::VoiceSeed> catalogue) {
  for (const auto& e : templates::upstream_services(db)) {
    std::erase_if(catalogue, [&](const voices::VoiceSeed& v) { return v.service == e.service; });
  }
  return catalogue;
}

int admin_service_sync(const Config& config, const std::string& service) {
  Database database(config);
  const auto engine = templates::load_service_engine(database.db(), service);
  if (!engine) return fail("no service with key " + service);
  auto synced = sync_upstream_voices(config, database.db(), *engine);
  if (!synced) return fail(synced.error());
  print(*synced);
  return 0;
}

}  // namespace mediagen::app
