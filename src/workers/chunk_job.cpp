#include "chunk_job.hpp"

#include "engine_request.hpp"
#include "mediagen/engines/audio.hpp"
#include "mediagen/engines/codec/audio_out.hpp"
#include "mediagen/engines/speech.hpp"
#include "mediagen/engines/speech/breaks.hpp"
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
    // ElevenLabs honours its own break tags; an OpenAI-shaped server would read them aloud.
    if (request.speech.breaks && target.kind != engines::UpstreamKind::elevenlabs) {
      request.speech.text = engines::without_breaks(request.speech.text, {}).text;
    }
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
    auto pcm = engines::speak_with_breaks_if(request.speech, [&context](const engines::SpeechRequest& r) {
      return context.speech.speak(r);
    });
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

// The chunk's file in the order's output format, converted from the engine's MP3 (the engines make
// MP3; the same audio, so its timings hold). A tts chunk keeps its MP3 beside it: the stitch joins
// the MP3 streams frame by frame and converts the track once, with no seam at the joins. `key` is
// the MP3's on entry and the chunk's file on return; the file's size is returned.
boost::system::result<std::int64_t, ChunkFailure> store_in_format(const orders::ClaimedChunk& chunk,
                                                                  const engines::OutputFormat& format,
                                                                  const std::string& mp3, std::string& key,
                                                                  const ChunkContext& context) {
  auto converter = engines::make_audio_out(format);
  if (!converter) return technical("engine_error", "no encoder for " + format.name());
  auto head = converter->feed(mp3);
  auto tail = head ? converter->finish() : std::nullopt;
  if (!tail) return technical("engine_error", "the audio did not convert to " + format.name());
  if (chunk.task_type == TaskType::tts) {
    if (auto put = context.store.put(key, mp3); !put) return technical("storage_error", put.error().detail);
  }
  key = orders::item_format_key(key, format.name(), engines::output_extension(format));
  *head += *tail;
  if (auto put = context.store.put(key, *head); !put) return technical("storage_error", put.error().detail);
  return static_cast<std::int64_t>(head->size());
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
  if (request->output_format) {
    auto stored = store_in_format(chunk, *request->output_format, audio->mp3, out.result_path, context);
    if (!stored) return stored.error();
    out.size = *stored;
  } else {
    auto put = context.store.put(out.result_path, audio->mp3);
    if (!put) return technical("storage_error", put.error().detail);
    out.size = static_cast<std::int64_t>(audio->mp3.size());
  }
  out.duration_ms = audio->duration_ms;
  out.timings_json = engines::timings_to_json(audio->words, audio->words_estimated);
  return out;
}

}  // namespace mediagen::workers::detail
