#pragma once
// Builds an order's result once every position has audio: the newest completed record of each
// position, in chunk order, its MP3 streams joined frame by frame (no re-encoding), subtitles
// (SRT and WebVTT) from the chunks' texts and word timings, each chunk's cues shifted by the
// durations of the chunks before it. Writes result.mp3, result.srt and result.vtt under the
// order's storage prefix, then finishes the order through the queue (fenced by the stitch token).
//
// Failure (a chunk's file missing or unreadable, a broken stream, the store failing) leaves the
// order as it is: its stitch lease runs out and the sweeper hands the stitch out again.
#include "mediagen/orders/work_queue.hpp"

namespace mediagen::storage {
class ObjectStore;
}

namespace mediagen::workers {

enum class StitchOutcome {
  completed,  // the order is completed with its result
  lost,       // the token no longer held the stitch; the files written are superseded
  failed,     // nothing changed on the order; the sweeper will retry after the stitch lease
};

class Stitcher {
 public:
  explicit Stitcher(storage::ObjectStore& store) : store_(store) {}

  StitchOutcome stitch(orders::WorkQueue& queue, const orders::StitchJob& job, std::vector<orders::OrderChange>* changes = nullptr);

 private:
  storage::ObjectStore& store_;
};

}  // namespace mediagen::workers
