#pragma once
// One claimed chunk's work between claim and settle: content checks, engine, finishing (loudness,
// fades, MP3), storage. Returns what to settle the chunk with; never touches the database.
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <variant>

#include "mediagen/orders/queue.hpp"
#include "mediagen/workers/content_check.hpp"

namespace mediagen::storage {
class ObjectStore;
}

namespace mediagen::workers {
class SpeechSource;
}

namespace mediagen::engines {
class PromptEngine;
class Upstreams;
}

namespace mediagen::voices {
class VoiceIndex;
}

namespace mediagen::workers::detail {

struct ChunkFailure {
  orders::FailureKind kind = orders::FailureKind::technical;
  std::string reason;  // the item's failure_reason
  std::string detail;  // for the log
};

inline ChunkFailure technical(std::string reason, std::string detail) {
  return {orders::FailureKind::technical, std::move(reason), std::move(detail)};
}

// The pool is stopping and the chunk was given back before its engine ran: nothing to settle.
struct Abandoned {};

using ChunkResult = std::variant<orders::ChunkOutput, ChunkFailure, Abandoned>;

struct ChunkContext {
  SpeechSource& speech;
  storage::ObjectStore& store;
  const ContentRules& content;
  std::string_view speech_engine;  // the engine_request "engine" `speech` serves
  // Sound effects and music by engine name (WorkerPoolOptions::prompt_engines).
  const std::map<std::string, engines::PromptEngine*, std::less<>>& prompt_engines;
  // Sleeps the drill's engine delay, if any; false when the pool is stopping (the engine is
  // then not started: the drain has given the chunk back already).
  std::function<bool()> before_engine;
  // Voice search: the catalogue's descriptions as the database has them now; may be empty.
  std::function<std::shared_ptr<const voices::VoiceIndex>()> voice_index;
  // The upstream provider engines (their caps and breakers); null: chunks of such engines fail.
  engines::Upstreams* upstreams = nullptr;
  // The texts of the chunks before and after this one (ElevenLabs' previous_text and next_text),
  // read by the pool before the job starts, only for an engine that takes them.
  orders::ChunkNeighbours neighbours;
};

ChunkResult run_chunk(const orders::ClaimedChunk& chunk, const ChunkContext& context);

}  // namespace mediagen::workers::detail
