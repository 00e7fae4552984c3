#pragma once
// Builds an order's result once every position has audio: the newest completed record of each
// position, in chunk order, its MP3 streams joined frame by frame (no re-encoding), subtitles
// (SRT and WebVTT) from the chunks' texts and word timings, each chunk's cues shifted by the
// durations of the chunks before it. Writes result.mp3, result.srt and result.vtt under the
// order's storage prefix, then finishes the order through the queue (fenced by the stitch token).
//
// Memory stays bounded whatever the order's size: each chunk's file is read in bounded pieces,
// checked frame by frame (engines::Mp3Joiner) and written on through the store's writer; only the
// subtitles' text is held whole. Nothing is visible under a result key before every file is
// written: a full disk or a failed write leaves no partial file behind.
//
// Failure (a chunk's file missing or unreadable, a broken stream, the store failing) is reported
// to the queue (WorkQueue::fail_stitch): the stitch is handed out again a bounded number of
// times, then the order gives up with its money returned.
#include <optional>
#include <string>
#include <string_view>

#include "mediagen/orders/queue.hpp"

namespace mediagen::storage {
class ObjectStore;
}

namespace mediagen::workers {

enum class StitchOutcome {
  completed,  // the order is completed with its result
  lost,       // the token no longer held the stitch; the files written are superseded
  retry,      // failed; counted, and the sweeper hands the stitch out again
  gave_up,    // failed for the last time: the order gave up (failed, or kept its previous result)
};

// Why an attempt failed: a word for the logs (chunk_audio_unreadable, chunk_audio_invalid,
// storage_error, positions_without_audio) and what the store or the check said.
struct StitchFailure {
  std::string_view why;
  std::string detail;
};

class Stitcher {
 public:
  explicit Stitcher(storage::ObjectStore& store) : store_(store) {}

  // The stitch's files alone, without the queue (the benchmark measures it): the track and its
  // subtitles and timings of `in` written and committed under `result`'s keys (one file, then the
  // srt, vtt and timings.json service files: anything else is a failure), its duration filled in.
  std::optional<StitchFailure> write_result(const orders::StitchInputs& in, orders::StitchedResult& result);

  StitchOutcome stitch(orders::WorkQueue& queue, const orders::StitchJob& job, std::vector<orders::OrderChange>* changes = nullptr);

 private:
  storage::ObjectStore& store_;
};

}  // namespace mediagen::workers
