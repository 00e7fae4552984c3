#pragma once
// `admin service engine` and `admin service sync`: an upstream provider behind a service.
#include <string>

#include "mediagen/core/config.hpp"
#include <nlohmann/json.hpp>

#include "mediagen/templates/service_engine.hpp"
#include "mediagen/voices/catalogue_builder.hpp"

namespace mediagen::app {

struct ServiceEngineArgs {
  std::string service;
  std::string kind;
  std::string url, model, key_env, key_file, voices;  // voices: comma-separated
};

// Prints the stored configuration as JSON (the key's source, never the key).
int admin_service_engine(const Config& config, const ServiceEngineArgs& args);
// Fetches the upstream's voices into the service's catalogue and prints what it stored.
int admin_service_sync(const Config& config, const std::string& service);

// The same for seed-demo: every upstream-backed service, a failure reported per service (the
// service keeps the voices it had).
nlohmann::ordered_json sync_all_upstream_voices(const Config& config, db::Db& db);

// The embedded catalogue without the services an upstream serves (their voices are the upstream's).
std::vector<voices::VoiceSeed> without_upstream_services(db::Db& db, std::vector<voices::VoiceSeed> catalogue);

}  // namespace mediagen::app
