#pragma once
// The command line of the upstream engine commands (main.cpp only: CLI11 is the binary's).
#include <CLI/CLI.hpp>
#include <optional>

#include "admin_upstream.hpp"

namespace mediagen::app {

struct UpstreamCommands {
  ServiceEngineArgs engine;
  std::string sync_service;
  CLI::App *engine_set = nullptr, *sync = nullptr;
};

inline void add_upstream_commands(CLI::App& service, UpstreamCommands& c) {
  auto& e = c.engine;
  c.engine_set = service.add_subcommand("engine", "Choose the engine of a service: embedded or an upstream provider");
  c.engine_set->add_option("--service", e.service)->required();
  c.engine_set->add_option("--kind", e.kind)->required()->check(CLI::IsMember({"espeak", "embedded", "openai", "elevenlabs"}));
  c.engine_set->add_option("--url", e.url, "The upstream's base URL (openai: the one ending in /v1)");
  c.engine_set->add_option("--model", e.model, "The upstream's model; default: the template's model id");
  c.engine_set->add_option("--api-key-env", e.key_env, "Name of the environment variable holding the key");
  c.engine_set->add_option("--api-key-file", e.key_file, "Absolute path of a file holding the key");
  c.engine_set->add_option("--voices", e.voices, "Comma-separated voice ids, for upstreams that list none");
  c.sync = service.add_subcommand("sync", "Fetch an upstream-backed service's voices into its catalogue");
  c.sync->add_option("--service", c.sync_service)->required();
}

// The exit code when one of these commands was given.
inline std::optional<int> run_upstream_command(const Config& config, const UpstreamCommands& c) {
  if (c.engine_set && c.engine_set->parsed()) return admin_service_engine(config, c.engine);
  if (c.sync && c.sync->parsed()) return admin_service_sync(config, c.sync_service);
  return std::nullopt;
}

}  // namespace mediagen::app
