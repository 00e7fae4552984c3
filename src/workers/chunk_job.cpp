#include "chunk_job.hpp"

#include "engine_request.hpp"
#include "mediagen/engines/audio.hpp"
#include "mediagen/engines/speech.hpp"
#include "mediagen/engines/prompt.hpp"
#include "mediagen/engines/upstream.hpp"
#include "mediagen/orders/order.hpp"
#include "mediagen/storage/object_store.hpp"
#include "mediagen/workers/speech_source.hpp"
#include "mediagen/engines/audio/word_timings.hpp"
#include "voice_search_job.hpp"

namespace mediagen::workers::detail {
namespace {

ChunkFailure from_engine(const engines::EngineFailure& f) {
  if (f.kind == engines::FailureKind::policy) return {orders::FailureKind::policy, "content_policy", f.detail};
  return technical(f.reason.empty() ? "engine_error" : f.reason, f.detail);
}

// An upstream provider's audio, finished like the embedded engines' speech: one path for loudness,
// fades and MP3 whatever made the sound.
boost::system::result<engines::Audio, ChunkFailure> from_upstream(const orders::ClaimedChunk& chunk,
                                                                  EngineRequest& request, const ChunkContext& context) {
  if (!context.upstreams) return technical("engine_unavailable", "no upstream engines here");
  const auto& target = *request.upstream;
  boost::system::result<engines::SpeechPcm, engines::EngineFailure> pcm = engines::SpeechPcm{};
  if (chunk.task_type == TaskType::tts) {
    request.speech.text = *chunk.text;
    // The chunks around this one carry the prosody across the joins; the order's own context
    // (previous_text, next_text of the request) stands at its ends.
    if (context.neighbours.previous) request.speech.previous_text = *context.neighbours.previous;
    if (context.neighbours.next) request.speech.next_text = *context.neighbours.next;
    pcm = context.upstreams->speak(target, request.speech);
  } else {
    request.prompt.prompt = *chunk.text;
    pcm = context.upstreams->generate(target, chunk.task_type, request.prompt);
  }
  if (!pcm) return from_engine(pcm.error());
  auto audio = engines::finish_chunk(std::move(*pcm));
  if (!audio) return from_engine(audio.error());
  return std::move(*audio);
}

// The engine the request names makes the chunk's audio: speech through its source and finishing,
// sound effects and music whole (each variant its own seed). Any other name is a service
// without an engine, whose chunks fail and whose funds go back.
boost::system::result<engines::Audio, ChunkFailure> generate(const orders::ClaimedChunk& chunk, EngineRequest& request,
                                                             const ChunkContext& context) {
  if (request.upstream) return from_upstream(chunk, request, context);
  if (chunk.task_type == TaskType::tts && request.engine == context.speech_engine) {
    request.speech.text = *chunk.text;
    auto pcm = context.speech.speak(request.speech);
    if (!pcm) return from_engine(pcm.error());
    auto audio = engines::finish_chunk(std::move(*pcm));
    if (!audio) return from_engine(audio.error());
    return std::move(*audio);
  }
  const auto engine = context.prompt_engines.find(request.engine);
  if (chunk.task_type == TaskType::tts || engine == context.prompt_engines.end() || !engine->second) {
    return technical("engine_unavailable", "engine " + request.engine + " for " + std::string(task_type_name(chunk.task_type)));
  }
  request.prompt.prompt = *chunk.text;
  request.prompt.seed += static_cast<std::uint64_t>(chunk.chunk_index);
  auto audio = engine->second->generate(request.prompt);
  if (!audio) return from_engine(audio.error());
  return std::move(*audio);
}

}  // namespace

ChunkResult run_chunk(const orders::ClaimedChunk& chunk, const ChunkContext& context) {
  if (!chunk.text) return technical("engine_error", "the chunk's text was removed");
  switch (check_content(*chunk.text, context.content)) {
    case ContentVerdict::policy_flagged: return ChunkFailure{orders::FailureKind::policy, "content_policy", "policy term"};
    case ContentVerdict::fault_drill: return technical("engine_error", "fault drill marker");
    case ContentVerdict::ok: break;
  }
  if (context.before_engine && !context.before_engine()) return Abandoned{};

  auto request = parse_engine_request(chunk.engine_request_json);
  if (!request) return technical("engine_error", "malformed engine_request");
  if (chunk.task_type == TaskType::voice_search) return run_voice_search(chunk, *request, context);
  auto audio = generate(chunk, *request, context);
  if (!audio) return audio.error();

  orders::ChunkOutput out;
  out.result_path = orders::item_audio_key(chunk.order_id, chunk.item_id, chunk.lease_token);
  auto put = context.store.put(out.result_path, audio->mp3);
  if (!put) return technical("storage_error", put.error().detail);
  out.size = static_cast<std::int64_t>(audio->mp3.size());
  out.duration_ms = audio->duration_ms;
  out.timings_json = engines::timings_to_json(audio->words, audio->words_estimated);
  return out;
}

}  // namespace mediagen::workers::detail
