#pragma once
// Which engine serves a service, chosen by the operator (`mediagen admin service engine`): the
// embedded one (espeak-ng for speech, the procedural and FluidSynth engines for sound effects and
// music) or an upstream provider's HTTP API (`openai`: the /audio/speech shape of OpenAI,
// Kokoro-FastAPI and openedai-speech, speech only; `elevenlabs`: speech, sound effects, music).
//
// Secrets: an upstream's key is named, never stored: an environment variable's name or a file's
// path. `admin seed-demo` keeps an engine chosen here.
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <boost/system/result.hpp>

#include "mediagen/db/db.hpp"
#include "mediagen/templates/catalogue.hpp"

namespace mediagen::templates {

struct EngineChoice {
  std::string service;  // services.key
  std::string kind;     // espeak | embedded | openai | elevenlabs
  ServiceUpstream upstream;
};

// The stored choice as the command prints it (never a secret).
struct ServiceEngine {
  std::string service;
  ServiceKind service_kind = ServiceKind::tts;
  std::string engine;
  std::optional<ServiceUpstream> upstream;
};

// The embedded engine of a service kind ("espeak", "sfx", "music", "voice_search").
std::string_view embedded_engine(ServiceKind kind);

// The refusal of a choice for a service of `kind`, in English; nullopt when it fits: openai
// serves speech only, elevenlabs speech, sound effects and music, espeak speech only, embedded
// any kind; an upstream needs an http(s) URL; a key is named by a variable name or an absolute
// path, not both.
std::optional<std::string> check_engine_choice(ServiceKind kind, const EngineChoice& choice);

// Checks and stores the choice; the refusal text when the service is unknown or the choice does
// not fit. The URL is kept without a trailing slash.
boost::system::result<ServiceEngine, std::string> set_service_engine(db::Db& db, EngineChoice choice);

// The engine of one service as stored; nullopt for an unknown key.
std::optional<ServiceEngine> load_service_engine(db::Db& db, std::string_view service);

// Every service served by an upstream engine, in catalogue order.
std::vector<ServiceEngine> upstream_services(db::Db& db);

}  // namespace mediagen::templates
