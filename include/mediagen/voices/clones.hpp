#pragma once
// Voice clones (spec 1, 2.6, 3.3, 4.5): an account's own voices for provider_c and provider_d.
// Not orders: no money moves. A clone is created `pending` from uploaded samples; a worker job
// (clone_job.hpp) builds its profile and makes it `ready` with a voice_id, or `failed` with a
// reason. Statuses and their moves: migrations/0010_voice_clones.sql.
//
// Limits, checked under the user row's lock in the creating transaction (two racing creates at
// the ceiling: one wins): clones that are pending, processing or ready count; failed and
// archived ones do not.
//   - The service closed to pay-as-you-go (`mediagen admin service payg --service S off`) and no
//     live subscription: 402 no_subscription.
//   - No live subscription: 2 clones per account, both services together; the third is 402
//     no_subscription (a clone needs a live subscription).
//   - A live subscription: the plan's clone_limit for provider_c and clone_limit_provider_d for
//     provider_d (NULL: kDefaultPlanCloneLimit); past it 429 limit_exceeded.
// All functions run blocking SQL: call them inside BlockingPool::run.
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "mediagen/core/api_error.hpp"
#include "mediagen/core/idempotency_key.hpp"
#include "mediagen/core/ids.hpp"
#include "mediagen/core/uuid_id.hpp"
#include "mediagen/core/time_zone.hpp"
#include "mediagen/db/db.hpp"
#include "mediagen/realtime/event.hpp"

namespace mediagen::voices {

enum class CloneStatus { pending, processing, ready, failed, archived };
std::string_view to_string(CloneStatus status);
std::optional<CloneStatus> parse_clone_status(std::string_view text);

inline constexpr std::int64_t kFreeCloneLimit = 2;          // without a live subscription (spec 8.2)
inline constexpr std::int64_t kDefaultPlanCloneLimit = 10;  // a plan whose limit column is NULL
inline constexpr std::size_t kMaxCloneNameChars = 100;
inline constexpr std::size_t kMaxCloneSamples = 10;

// Whether `service` takes clones: provider_c and provider_d.
bool is_clone_service(std::string_view service);

struct Clone {
  std::string id;  // uuid
  UserId user;
  std::string service;
  std::string name;
  CloneStatus status = CloneStatus::pending;
  std::optional<std::string> voice_id;        // at ready (kept when a ready clone is archived)
  std::optional<std::string> profile_json;    // engines::VoiceProfile as JSON, at ready
  std::optional<std::string> failure_reason;  // at failed: no_speech, too_short, undecodable, attempts_exhausted
  std::int64_t sample_count = 0;
  std::optional<double> sample_seconds;
  std::int64_t attempts = 0;
  TimePoint created_at;
  TimePoint updated_at;
};

// The clone as the API shows it: {id, service, name, status, voice_id (ready only), reason
// (failed only), sample_count, sample_seconds, attempts, created_at, updated_at}.
std::string clone_json(const Clone& clone, const TimeZone& tz);
// The voice_clone.updated event on private-voice-clones.{userId}: {id, service, status,
// voice_id (ready only), name, updated_at, reason (failed only)}; times in UTC.
realtime::Event clone_event(const Clone& clone);

// One uploaded sample, already stored under samples_prefix(id).
struct NewClone {
  std::string id;  // chosen before the samples were stored
  std::string service;
  std::string name;
  std::int64_t sample_count = 0;
  std::int64_t sample_bytes = 0;
};
// The object-store folder of a clone's samples ("clones/<id>/") and one sample's key.
std::string samples_prefix(std::string_view clone_id);
std::string sample_key(std::string_view clone_id, std::size_t index);

// The limits above, then the insert, in one transaction (a lost COMMIT is settled, never run twice).
Result<Clone> create_clone(db::Db& db, UserId user, const NewClone& clone);

// A create under an Idempotency-Key: the key is claimed first in the same transaction and the
// answer `render` makes of the new clone is stored with the row. A replay carries only the
// stored answer (no clone: nothing was created).
struct CreatedClone {
  std::optional<Clone> clone;
  std::string data_json;
  bool replayed = false;
};
Result<CreatedClone> create_clone(db::Db& db, UserId user, const NewClone& clone, const IdempotencyKey& key,
                                  const std::function<std::string(const Clone&)>& render);
// Before anything is stored: the answer of a finished create under the key (409
// idempotency_key_reused when the key was used with another request). nullopt: none.
std::optional<Result<CreatedClone>> replayed_create(db::Db& db, UserId user, const IdempotencyKey& key);

struct ClonePage {
  std::vector<Clone> items;
  std::int64_t total = 0;
};
// The user's clones of the service, newest first (archived ones included).
ClonePage list_clones(db::Db& db, UserId user, std::string_view service, std::int64_t offset, std::int64_t limit);
// 404 when malformed, unknown, of another service or another account (as orders answer).
Result<Clone> find_clone(db::Db& db, UserId user, std::string_view service, const CloneId& clone_id);
// failed -> pending (attempts start again; the limits are checked as for a create); any other
// status is 422 invalid_status.
Result<Clone> retry_clone(db::Db& db, UserId user, std::string_view service, const CloneId& clone_id);
// Any status but archived -> archived; archiving twice answers the archived clone unchanged.
// The caller removes the samples.
Result<Clone> archive_clone(db::Db& db, UserId user, std::string_view service, const CloneId& clone_id);

struct CloneQuota {
  std::string service;
  std::int64_t limit = 0;
  std::int64_t used = 0;
  std::int64_t remaining = 0;
};
struct CloneQuotas {
  bool subscription = false;  // a live subscription; without one the limit is shared
  std::vector<CloneQuota> services;
};
CloneQuotas clone_quotas(db::Db& db, UserId user);

}  // namespace mediagen::voices
