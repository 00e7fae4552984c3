#include "mediagen/workers/stitcher.hpp"

#include "mediagen/core/log.hpp"
#include "mediagen/engines/audio.hpp"
#include "mediagen/engines/audio/output_format.hpp"
#include "mediagen/engines/codec/audio_out.hpp"
#include "mediagen/engines/speech.hpp"
#include "mediagen/orders/order.hpp"
#include "mediagen/storage/object_store.hpp"
#include "mediagen/engines/audio/word_timings.hpp"

namespace mediagen::workers {
namespace {

// What one read of a chunk's file asks for: the stitch holds this, one frame's tail and the
// store's own buffers, whatever the size of the order.
constexpr std::uint64_t kPieceBytes = 256 * 1024;

using Failure = StitchFailure;

using Writer = std::unique_ptr<storage::ObjectWriter>;

// Where the joined MP3 goes: the track's writer, through the order's output format when it has one.
class TrackSink {
 public:
  TrackSink(storage::ObjectWriter& out, std::unique_ptr<engines::AudioOut> converter)
      : out_(out), converter_(std::move(converter)) {}

  std::optional<Failure> write(std::string_view mp3) {
    if (!converter_) return put(mp3);
    auto converted = converter_->feed(mp3);
    if (!converted) return Failure{"chunk_audio_invalid", "the track did not convert to its output format"};
    return put(*converted);
  }

  std::optional<Failure> finish() {
    if (!converter_) return std::nullopt;
    auto tail = converter_->finish();
    if (!tail) return Failure{"chunk_audio_invalid", "the track did not convert to its output format"};
    return put(*tail);
  }

 private:
  std::optional<Failure> put(std::string_view bytes) {
    if (bytes.empty()) return std::nullopt;
    if (auto written = out_.write(bytes); !written) return Failure{"storage_error", written.error().detail};
    return std::nullopt;
  }

  storage::ObjectWriter& out_;
  std::unique_ptr<engines::AudioOut> converter_;
};

// Streams one chunk's file into the track through the joiner, in bounded pieces. The chunk's
// frames as the stream has them (its length is what a player plays, not the stored figure).
boost::system::result<engines::Mp3Frames, Failure> append_part(storage::ObjectStore& store, const std::string& key,
                                                               engines::Mp3Joiner& joiner, TrackSink& out) {
  auto size = store.stat(key);
  if (!size) return Failure{"chunk_audio_unreadable", size.error().detail};
  if (!size.value()) return Failure{"chunk_audio_unreadable", "no object: " + key};
  const auto invalid = [&](const engines::EngineFailure& f) {
    return Failure{"chunk_audio_invalid", key + ": " + f.detail};
  };
  std::string buffer;  // the joiner's unaccepted tail (under a frame), then the next piece
  for (std::uint64_t offset = 0; offset < *size.value();) {
    auto piece = store.read(key, offset, kPieceBytes);
    if (!piece) return Failure{"chunk_audio_unreadable", piece.error().detail};
    if (piece->empty()) break;  // cut short since the stat: end_stream says how
    offset += piece->size();
    buffer.append(*piece);
    auto taken = joiner.take(buffer);
    if (!taken) return invalid(taken.error());
    if (auto failed = out.write(std::string_view(buffer).substr(0, *taken))) return *failed;
    buffer.erase(0, *taken);
  }
  auto ended = joiner.end_stream(buffer);
  if (!ended) return invalid(ended.error());
  return *ended;
}

Writer open(storage::ObjectStore& store, const std::string& key, std::optional<Failure>& failure) {
  auto writer = store.open_writer(key);
  if (writer) return std::move(*writer);
  failure = Failure{"storage_error", writer.error().detail};
  return nullptr;
}

std::optional<Failure> write(storage::ObjectWriter& out, std::string_view bytes) {
  if (auto written = out.write(bytes); !written) return Failure{"storage_error", written.error().detail};
  return std::nullopt;
}

// The track, then its subtitles and its timings as data, each written to its writer; nothing is
// visible before the writers commit. Fills the result's duration.
std::optional<Failure> write_files(storage::ObjectStore& store, const orders::StitchInputs& in,
                                   std::span<const Writer> out, orders::StitchedResult& result) {
  const auto format = in.output_format ? engines::parse_output_format(*in.output_format) : std::nullopt;
  std::unique_ptr<engines::AudioOut> converter;
  if (format && !(converter = engines::make_audio_out(*format))) {
    return Failure{"chunk_audio_invalid", "no encoder for " + *in.output_format};
  }
  TrackSink track(*out[0], std::move(converter));
  engines::Mp3Joiner joiner;
  std::vector<std::vector<engines::WordTiming>> words;
  std::vector<engines::TimedText> timed;
  words.reserve(in.parts.size());
  timed.reserve(in.parts.size());
  std::int64_t offset_ms = 0;
  for (const auto& part : in.parts) {
    // An order in another format keeps each chunk's MP3 beside its file: the track joins those.
    const std::string mp3 = format ? orders::item_mp3_key(part.result_path, format->name(), engines::output_extension(*format))
                                   : part.result_path;
    auto frames = append_part(store, mp3, joiner, track);
    if (!frames) return frames.error();
    // Timings that do not parse cost the chunk its subtitles' precision, not the order's result:
    // the subtitle writer spreads an untimed chunk's text over its duration.
    words.push_back(engines::timings_from_json(part.timings_json).value_or(std::vector<engines::WordTiming>{}));
    const std::string_view text = part.text ? std::string_view(*part.text) : std::string_view();
    timed.push_back({text, words.back(), offset_ms, frames->duration_ms, engines::timings_estimated(part.timings_json)});
    offset_ms += frames->duration_ms;
  }
  if (auto failed = track.finish()) return failed;
  result.duration_ms = joiner.joined().duration_ms;
  if (auto failed = write(*out[1], engines::render_srt(timed))) return failed;
  if (auto failed = write(*out[2], engines::render_webvtt(timed))) return failed;
  std::optional<Failure> failure;
  engines::write_timings_json(timed, [&](std::string_view piece) {
    failure = write(*out[3], piece);
    return !failure;
  });
  return failure;
}

}  // namespace

std::optional<StitchFailure> Stitcher::write_result(const orders::StitchInputs& in, orders::StitchedResult& result) {
  storage::ObjectStore& store = store_;
  if (result.files.size() != 1 || result.service_files.size() != 3) {
    return Failure{"stitch_misconfigured", "a track needs one file and three service files (srt, vtt, timings)"};
  }
  std::optional<Failure> failure;
  std::vector<Writer> out;
  for (const auto& key : {result.files[0], result.service_files[0], result.service_files[1], result.service_files[2]}) {
    out.push_back(open(store, key, failure));
    if (failure) return failure;
  }
  if (auto failed = write_files(store, in, out, result)) return failed;
  for (auto& writer : out) {
    if (auto committed = writer->commit(); !committed) return Failure{"storage_error", committed.error().detail};
  }
  return std::nullopt;
}

namespace {

StitchOutcome failed(orders::WorkQueue& queue, const orders::StitchJob& job, const Failure& failure,
                     std::vector<orders::OrderChange>* changes) {
  log::error("stitch failed", {{"order_id", job.order_id}, {"reason", failure.why}, {"detail", failure.detail}});
  switch (queue.fail_stitch(job, changes)) {
    case orders::StitchFailed::lost: return StitchOutcome::lost;
    case orders::StitchFailed::retry: return StitchOutcome::retry;
    case orders::StitchFailed::gave_up:
      log::warn("stitch gave up", {{"order_id", job.order_id}, {"attempts", orders::kMaxStitchAttempts}});
      return StitchOutcome::gave_up;
  }
  return StitchOutcome::retry;
}

// Sound effects and music: each chunk's file is one of the result's files, in chunk order (a
// music order's variants), as it is; nothing is joined. Each must still be there.
StitchOutcome list_files(orders::WorkQueue& queue, const orders::StitchJob& job, const orders::StitchInputs& in,
                         std::vector<orders::OrderChange>* changes, storage::ObjectStore& store) {
  orders::StitchedResult result;
  for (const auto& part : in.parts) {
    auto size = store.stat(part.result_path);
    if (!size) return failed(queue, job, {"chunk_audio_unreadable", size.error().detail}, changes);
    if (!size.value()) return failed(queue, job, {"chunk_audio_unreadable", "no object: " + part.result_path}, changes);
    result.files.push_back(part.result_path);
    result.duration_ms = std::max(result.duration_ms, part.duration_ms.value_or(0));
  }
  if (!queue.finish_stitch(job, result, changes)) {
    log::info("stitch superseded", {{"order_id", job.order_id}});
    return StitchOutcome::lost;
  }
  return StitchOutcome::completed;
}

// Voice search: the one chunk's result (a small JSON object its worker stored) becomes the
// order's result data; the order has no files.
StitchOutcome keep_data(orders::WorkQueue& queue, const orders::StitchJob& job, const orders::StitchInputs& in,
                        std::vector<orders::OrderChange>* changes, storage::ObjectStore& store) {
  constexpr std::uint64_t kMaxResultBytes = 1024 * 1024;
  const auto& part = in.parts.front();
  auto bytes = store.read(part.result_path, 0, kMaxResultBytes);
  if (!bytes) return failed(queue, job, {"chunk_result_unreadable", bytes.error().detail}, changes);
  orders::StitchedResult result;
  result.data_json = std::move(*bytes);
  result.duration_ms = part.duration_ms.value_or(0);
  if (!queue.finish_stitch(job, result, changes)) {
    log::info("stitch superseded", {{"order_id", job.order_id}});
    return StitchOutcome::lost;
  }
  return StitchOutcome::completed;
}

}  // namespace

StitchOutcome Stitcher::stitch(orders::WorkQueue& queue, const orders::StitchJob& job, std::vector<orders::OrderChange>* changes) {
  const orders::StitchInputs in = queue.stitch_inputs(job.order_id);
  if (in.positions == 0 || static_cast<int>(in.parts.size()) != in.positions) {
    return failed(queue, job,
                  {"positions_without_audio", std::to_string(in.parts.size()) + "/" + std::to_string(in.positions)},
                  changes);
  }
  if (is_single_shot(in.task_type)) return list_files(queue, job, in, changes, store_);
  if (in.task_type == TaskType::voice_search) return keep_data(queue, job, in, changes, store_);
  orders::StitchedResult result;
  const auto format = in.output_format ? engines::parse_output_format(*in.output_format) : std::nullopt;
  result.files = {format ? orders::result_audio_key(job.order_id, engines::output_extension(*format))
                         : orders::result_audio_key(job.order_id)};
  result.service_files = {orders::result_subtitles_key(job.order_id, "srt"),
                          orders::result_subtitles_key(job.order_id, "vtt"),
                          orders::result_subtitles_key(job.order_id, "timings.json")};
  if (auto failure = write_result(in, result)) return failed(queue, job, *failure, changes);

  if (!queue.finish_stitch(job, result, changes)) {
    log::info("stitch superseded", {{"order_id", job.order_id}});
    return StitchOutcome::lost;
  }
  return StitchOutcome::completed;
}

}  // namespace mediagen::workers
