#include "voice_search_job.hpp"

#include <cmath>
#include <span>

#include <nlohmann/json.hpp>

#include "mediagen/core/json_text.hpp"
#include "mediagen/engines/codec.hpp"
#include "mediagen/engines/voice.hpp"
#include "mediagen/orders/order.hpp"
#include "mediagen/storage/object_store.hpp"

namespace mediagen::workers::detail {
namespace {

std::string result_key(const orders::ClaimedChunk& chunk) {
  return orders::order_storage_prefix(chunk.order_id) + "items/" + chunk.item_id.str() + "." + chunk.lease_token.str() + ".json";
}

// The upload's bytes; the intake's own size cap applies before anything is read.
boost::system::result<std::string, ChunkFailure> read_upload(storage::ObjectStore& store, const std::string& key,
                                                             const engines::IntakeLimits& limits) {
  auto size = store.stat(key);
  if (!size) return technical("storage_error", size.error().detail);
  if (!*size) return technical("input_expired", "no upload at " + key);
  if (**size > limits.max_input_bytes) return technical("source_file_unsupported", "upload over the intake's size cap");
  auto bytes = store.read(key, 0, **size);
  if (!bytes) return technical("storage_error", bytes.error().detail);
  return std::move(*bytes);
}

}  // namespace

std::string voice_search_result_json(const std::vector<voices::VoiceMatch>& voices, bool truncated, double seconds) {
  nlohmann::json list = nlohmann::json::array();
  for (const auto& v : voices) {
    // Four decimals are plenty to order by and keep the JSON stable.
    list.push_back({{"voice_id", v.voice_id}, {"service", v.service}, {"name", v.name},
                    {"score", std::round(v.score * 1e4) / 1e4}});
  }
  return to_json_text(nlohmann::json{
      {"voices", std::move(list)}, {"truncated", truncated}, {"analysed_seconds", std::round(seconds * 100) / 100}});
}

ChunkResult run_voice_search(const orders::ClaimedChunk& chunk, const EngineRequest& request,
                             const ChunkContext& context) {
  const engines::IntakeLimits limits{};
  auto bytes = read_upload(context.store, request.upload, limits);
  if (!bytes) return bytes.error();
  auto audio = engines::read_audio(*bytes, limits);
  if (!audio) {
    const bool empty = audio.error().kind == engines::IntakeRefusalKind::empty;
    return technical(empty ? "source_file_required" : "source_file_unsupported", audio.error().detail);
  }
  const auto features = engines::voice_features(std::span<const float>(audio->samples), audio->sample_rate);
  if (!features) return technical("audio_without_voice", "too little sound above the silence gate");
  const auto index = context.voice_index ? context.voice_index() : nullptr;
  if (!index || index->voice_count() == 0) return technical("voice_index_empty", "no catalogue voice is described");

  const auto top = static_cast<std::size_t>(std::clamp<std::int64_t>(request.top, 1, 50));
  const std::string json = voice_search_result_json(index->rank(*features, top), audio->truncated, audio->seconds);
  orders::ChunkOutput out;
  out.result_path = result_key(chunk);
  if (auto put = context.store.put(out.result_path, json); !put) return technical("storage_error", put.error().detail);
  out.size = static_cast<std::int64_t>(json.size());
  out.duration_ms = std::llround(audio->seconds * 1000);
  return out;
}

}  // namespace mediagen::workers::detail
