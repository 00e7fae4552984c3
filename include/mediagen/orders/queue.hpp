#pragma once
// The work queue of orders: the one API through which workers take chunks and report what became
// of them. Workers own threads, leases and engines; this decides every status that follows (by the
// state machine of order_status.hpp), charges and refunds, and reports each change as an
// OrderChange for after commit. Its SQL is in the *_store.cpp files of src/orders/.
//
// Order items are the queue's rows, claimed with FOR UPDATE SKIP LOCKED on the
// partial index of waiting rows and held under a lease (lease_token + locked_until).
//
// Every state change and the money it moves (billing::post) commit in one transaction. Locks are
// taken in one order everywhere (item rows, then the order row, then ledger accounts) so two
// workers never deadlock on each other. Completion and failure are fenced by the lease token: a
// worker that lost its lease (a "zombie" whose chunk was rescued and run again) writes nothing
// and moves no money, so a chunk is charged once however often it runs.
//
// Settling: after a chunk's completion or failure the order row is locked and its positions
// looked at (the last attempt of a position is its newest chunk|retry record):
//   some record still pending/processing      -> nothing to decide yet;
//   every position's last attempt completed   -> stitching starts (a leased stitch token on the
//                                                order; the caller gets a StitchJob);
//   some completed, the others failed/flagged -> partially_completed (the locks stay for retries);
//   none completed                            -> failed, and the order's escrow is released.
//
// Blocking: every call is a libpqxx round trip on the Db it was built with; one WorkQueue per
// thread. Throws db::Unavailable when PostgreSQL cannot be reached (nothing was committed then,
// or, for an in-doubt commit, the caller retries: every call is idempotent under its token).
#include <chrono>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "mediagen/core/ids.hpp"
#include "mediagen/db/db.hpp"
#include "mediagen/orders/order.hpp"
#include "mediagen/orders/limits.hpp"

namespace mediagen::orders {

// A rescued chunk goes back to the queue until it has been claimed this often; then it fails
// with "lease_expired" (a chunk that kills its worker every time must not loop forever).
inline constexpr int kMaxClaims = 5;

// An order's stitch is handed out at most this often (the first time by settling, then by the
// sweeper after a failure or a crash); when the last attempt fails, or its lease runs out, the
// stitch gives up (see fail_stitch).
inline constexpr int kMaxStitchAttempts = 3;

struct ClaimedChunk {
  ItemId item_id;
  OrderId order_id;
  UserId user_id;
  std::optional<std::string> text;  // nullopt only if retention removed it (never for live rows)
  int chunk_index = 0;
  std::string item_type;            // chunk | retry | regeneration
  TaskType task_type = TaskType::tts;
  std::string engine_request_json;  // orders.engine_request
  LeaseToken lease_token;
  std::vector<OrderChange> changes; // what the claim changed: the item, and the order if it started
};

// What a finished chunk produced. timings_json: [[byte offset, byte length, start ms], ...] on
// the chunk's own MP3 time line (the format of order_items.timings).
// The texts of the chunks on either side of one (the latest record of each position); nullopt at
// the order's ends or once retention removed a text.
struct ChunkNeighbours {
  std::optional<std::string> previous;
  std::optional<std::string> next;
};

struct ChunkOutput {
  std::string result_path;  // a storage key
  std::int64_t size = 0;    // bytes
  std::int64_t duration_ms = 0;
  std::string timings_json = "[]";
};

enum class FailureKind { technical, policy };  // item status failed / policy_flagged

// The order is ready to be stitched; `token` fences the stitch like a lease token fences a chunk.
struct StitchJob {
  OrderId order_id;
  LeaseToken token;
};

struct Settled {
  bool applied = false;  // false: the lease was lost; nothing was written, no money moved
  std::optional<StitchJob> stitch;
  std::vector<OrderChange> changes;
};

struct SweepReport {
  int requeued = 0;  // processing -> pending
  int failed = 0;    // processing -> failed "lease_expired"
  std::vector<OrderChange> changes;
};

// Per position, the record whose audio the result uses: the newest completed one of any type.
struct StitchPart {
  std::string item_id;
  int chunk_index = 0;
  std::optional<std::string> text;
  std::string result_path;
  std::optional<std::int64_t> duration_ms;
  std::string timings_json = "[]";
};

struct StitchInputs {
  TaskType task_type = TaskType::tts;  // of the order: tts is joined into one track; sfx and music list their
                                   // files; voice_search's one part is its result data
  int positions = 0;               // chunk positions of the order (its original chunks)
  std::optional<std::string> output_format;  // the order's (engine_request), by name; nullopt: MP3
  std::vector<StitchPart> parts;   // ordered by chunk_index; one per position that has audio
};

struct StitchedResult {
  std::vector<std::string> files;          // tts ["orders/<id>/result.mp3"]; sfx, music: one per chunk
  std::vector<std::string> service_files;  // subtitles
  std::int64_t duration_ms = 0;
  std::optional<std::string> data_json;    // voice_search: the ranked voices (orders.result_data)
};

struct QueueOptions {
  // How long a started stitch is protected before the sweeper hands it to another stitcher.
  std::chrono::milliseconds stitch_lease{std::chrono::seconds(120)};
  // How long after a failed attempt the stitch is handed out again (a store that was briefly
  // unreachable gets time to come back).
  std::chrono::milliseconds stitch_retry_delay{std::chrono::seconds(10)};
  // What a policy-blocked order adds to its user's streak, and what a cooldown lasts (fail()).
  PolicyCooldown cooldown;
};

enum class StitchFailed {
  lost,     // the token no longer held the stitch: nothing written
  retry,    // counted; the sweeper hands the stitch out again after stitch_retry_delay
  gave_up,  // the last attempt: the order gave up (see fail_stitch)
};

class WorkQueue {
 public:
  explicit WorkQueue(db::Db& db, QueueOptions options = {});

  // Takes the oldest waiting chunk, if any, under a fresh lease: item pending -> processing
  // (claims + 1), its order created|pending -> in_progress. One transaction.
  std::optional<ClaimedChunk> claim(std::chrono::milliseconds lease);

  // Extends the lease; false when it was lost (rescued, cancelled, settled).
  bool heartbeat(const ItemId& item_id, const LeaseToken& token, std::chrono::milliseconds lease);

  // Item -> completed, the chunk's charge posted (escrow -> revenue, quota escrow -> quota spent),
  // then the order settled.
  Settled complete(const ItemId& item_id, const LeaseToken& token, const ChunkOutput& output);

  // Item -> failed (technical) or policy_flagged (policy) with `reason`; a retry's surcharge is
  // returned; the base lock stays for the next free retry. Then the order is settled. The
  // order's first policy_flagged record counts it toward its user's policy cooldown.
  Settled fail(const ItemId& item_id, const LeaseToken& token, FailureKind kind, std::string_view reason);

  // The sweeper: chunks whose lease ran out go back to the queue (or fail "lease_expired" once
  // claimed kMaxClaims times); an in_progress order left with nothing processing and nothing
  // completed goes back to pending. Handles at most `batch` chunks per call.
  SweepReport release_expired_leases(int batch = 100);

  // Chunks waiting for a worker, on every instance sharing the database (the queue depth the
  // metrics show). One probe of the queue's partial index.
  std::int64_t pending_chunks();

  // Graceful drain: the chunks of these lease tokens go back to pending at once (the drain does
  // not count as a claim). Returns how many were released.
  int release_own(std::span<const LeaseToken> lease_tokens, std::vector<OrderChange>* changes = nullptr);

  // What the stitcher needs to build the result.
  StitchInputs stitch_inputs(const OrderId& order_id);
  // The texts around position `chunk_index` of a tts order (for an engine that takes them).
  ChunkNeighbours neighbours(const OrderId& order_id, int chunk_index);

  // The order -> completed (result_delivered stays), result paths and duration recorded, the stitch
  // lease cleared, and whatever is left in its escrow released ("order_release"). Its first
  // completion with no policy-flagged record resets its user's policy streak. False when
  // the token no longer holds the stitch (another stitcher took over, or the order was cancelled).
  bool finish_stitch(const StitchJob& job, const StitchedResult& result, std::vector<OrderChange>* changes = nullptr);

  // The stitch failed (a part missing or unreadable, a broken stream, the store failing); fenced
  // by the token. Before the kMaxStitchAttempts-th attempt it is only counted. At it the stitch
  // gives up, in one transaction: the order -> failed with failure_reason "stitch_failed" (a
  // finished order re-stitched after a regeneration keeps its status and previous result, and
  // gets the reason), every chunk charge posted since that result was built returned
  // ("charge_refund": no result was delivered for it), whatever its escrow still holds released
  // ("order_release").
  StitchFailed fail_stitch(const StitchJob& job, std::vector<OrderChange>* changes = nullptr);

  // Stitches whose lease ran out (the stitcher crashed, or a failed attempt waits for its
  // retry), each handed out again under a fresh token so only one stitcher of all instances
  // takes it, counted as an attempt. A stitch whose last attempt's lease ran out gives up as in
  // fail_stitch (a stitch that kills its process every time must not loop forever); `changes`
  // gets what those did.
  std::vector<StitchJob> expired_stitches(int batch = 20, std::vector<OrderChange>* changes = nullptr);

  // Upkeep (the janitor): terminal orders older than `age` whose files are still there.
  std::vector<std::string> retention_due(std::chrono::seconds age, int batch);
  // The order's files are gone: its texts are forgotten, its paths stay listed.
  void mark_files_removed(std::string_view order_id);
  // partially_completed orders unchanged for `age`: compensated, what their escrow still holds
  // released ("order_release"). Returns the changes made.
  std::vector<OrderChange> compensate_abandoned(std::chrono::seconds age, int batch);
  // Spent top-up quotes recorded longer ago than `age` (past any token's lifetime): forgotten.
  std::int64_t forget_spent_quotes(std::chrono::seconds age);

 private:
  db::Db& db_;
  QueueOptions options_;
};

}  // namespace mediagen::orders
