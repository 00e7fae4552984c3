#include "chunk_job.hpp"

#include "engine_request.hpp"
#include "mediagen/engines/audio_finish.hpp"
#include "mediagen/orders/order.hpp"
#include "mediagen/storage/object_store.hpp"
#include "mediagen/workers/speech_source.hpp"
#include "timings.hpp"

namespace mediagen::workers::detail {
namespace {

ChunkFailure technical(std::string reason, std::string detail) {
  return {orders::FailureKind::technical, std::move(reason), std::move(detail)};
}

ChunkFailure from_engine(const engines::EngineFailure& f) {
  if (f.kind == engines::FailureKind::policy) return {orders::FailureKind::policy, "content_policy", f.detail};
  return technical("engine_error", f.detail);
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
  // Only speech has an engine so far; every other engine name (and "none") is a service
  // without one, whose chunks fail and whose funds go back.
  if (chunk.task_type != "tts" || request->engine != context.speech_engine) {
    return technical("engine_unavailable", "engine " + request->engine + " for " + chunk.task_type);
  }
  request->speech.text = *chunk.text;

  auto pcm = context.speech.speak(request->speech);
  if (!pcm) return from_engine(pcm.error());
  auto audio = engines::finish_chunk(std::move(*pcm));
  if (!audio) return from_engine(audio.error());

  orders::ChunkOutput out;
  out.result_path = orders::item_audio_key(chunk.order_id, chunk.item_id, chunk.lease_token);
  auto put = context.store.put(out.result_path, audio->mp3);
  if (!put) return technical("storage_error", put.error().detail);
  out.size = static_cast<std::int64_t>(audio->mp3.size());
  out.duration_ms = audio->duration_ms;
  out.timings_json = timings_to_json(audio->words);
  return out;
}

}  // namespace mediagen::workers::detail
