#include "mediagen/workers/stitcher.hpp"

#include "mediagen/core/log.hpp"
#include "mediagen/engines/mp3_concat.hpp"
#include "mediagen/engines/subtitles.hpp"
#include "mediagen/orders/order.hpp"
#include "mediagen/storage/object_store.hpp"
#include "timings.hpp"

namespace mediagen::workers {
namespace {

std::optional<std::string> load(storage::ObjectStore& store, const std::string& key) {
  auto size = store.stat(key);
  if (!size || !size.value()) return std::nullopt;
  auto bytes = store.read(key, 0, *size.value());
  if (!bytes) return std::nullopt;
  return std::move(bytes.value());
}

StitchOutcome give_up(const orders::StitchJob& job, std::string_view why, std::string_view detail) {
  log::error("stitch failed", {{"order_id", job.order_id}, {"reason", why}, {"detail", detail}});
  return StitchOutcome::failed;
}

}  // namespace

StitchOutcome Stitcher::stitch(orders::WorkQueue& queue, const orders::StitchJob& job, std::vector<orders::OrderChange>* changes) {
  const orders::StitchInputs in = queue.stitch_inputs(job.order_id);
  if (in.positions == 0 || static_cast<int>(in.parts.size()) != in.positions) {
    return give_up(job, "positions_without_audio", std::to_string(in.parts.size()) + "/" + std::to_string(in.positions));
  }

  std::vector<std::string> streams;
  std::vector<std::vector<engines::WordTiming>> words;
  streams.reserve(in.parts.size());
  words.reserve(in.parts.size());
  for (const auto& part : in.parts) {
    auto mp3 = load(store_, part.result_path);
    if (!mp3) return give_up(job, "chunk_audio_unreadable", part.result_path);
    streams.push_back(std::move(*mp3));
    // Timings that do not parse cost the chunk its subtitles' precision, not the order's result:
    // the subtitle writer spreads an untimed chunk's text over its duration.
    words.push_back(detail::timings_from_json(part.timings_json).value_or(std::vector<engines::WordTiming>{}));
  }

  std::vector<engines::TimedText> timed;
  timed.reserve(in.parts.size());
  std::int64_t offset_ms = 0;
  for (std::size_t i = 0; i < in.parts.size(); ++i) {
    // The stream's own length, not the stored one: the cues must follow what a player plays.
    auto duration = engines::mp3_duration_ms(streams[i]);
    if (!duration) return give_up(job, "chunk_audio_invalid", duration.error().detail);
    const std::string_view text = in.parts[i].text ? std::string_view(*in.parts[i].text) : std::string_view();
    timed.push_back({text, words[i], offset_ms, *duration});
    offset_ms += *duration;
  }

  std::vector<std::string_view> views(streams.begin(), streams.end());
  auto joined = engines::concat_mp3(views);
  if (!joined) return give_up(job, "concat_failed", joined.error().detail);
  auto total = engines::mp3_duration_ms(*joined);
  if (!total) return give_up(job, "concat_failed", total.error().detail);

  orders::StitchedResult result;
  result.files = {orders::result_audio_key(job.order_id)};
  result.service_files = {orders::result_subtitles_key(job.order_id, "srt"),
                          orders::result_subtitles_key(job.order_id, "vtt")};
  result.duration_ms = *total;
  const std::string srt = engines::render_srt(timed);
  const std::string vtt = engines::render_webvtt(timed);
  for (const auto& [key, bytes] : {std::pair<const std::string&, const std::string&>{result.files[0], *joined},
                                   {result.service_files[0], srt},
                                   {result.service_files[1], vtt}}) {
    auto put = store_.put(key, bytes);
    if (!put) return give_up(job, "storage_error", put.error().detail);
  }

  if (!queue.finish_stitch(job, result, changes)) {
    log::info("stitch superseded", {{"order_id", job.order_id}});
    return StitchOutcome::lost;
  }
  return StitchOutcome::completed;
}

}  // namespace mediagen::workers
