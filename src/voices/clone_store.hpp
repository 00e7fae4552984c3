#pragma once
// The SQL of voice clones (the table of migrations/0010_voice_clones.sql): the rows, the limit
// reads, and the job queue's claim and settle, fenced by the lease token.
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "mediagen/db/db.hpp"
#include "mediagen/voices/clones.hpp"

namespace mediagen::voices::store {

// The user row, locked: creates and retries of one account queue behind each other.
bool lock_user(db::Db& db, db::Tx& tx, UserId user);

struct LimitContext {
  bool subscribed = false;
  std::optional<std::int64_t> plan_limit;             // provider_c (NULL: default)
  std::optional<std::int64_t> plan_limit_provider_d;  // provider_d (NULL: default)
};
LimitContext limit_context(db::Db& db, db::Tx& tx, UserId user);
// Whether the service is open to pay-as-you-go (an unknown service: true).
bool payg_enabled(db::Db& db, db::Tx& tx, std::string_view service);
// Clones that count toward the limits (pending, processing, ready), per service.
std::int64_t counted(db::Db& db, db::Tx& tx, UserId user, std::string_view service);

Clone insert(db::Db& db, db::Tx& tx, UserId user, const NewClone& clone);
std::optional<Clone> find(db::Db& db, db::Tx& tx, std::string_view id, bool lock);
std::vector<Clone> page(db::Db& db, db::Tx& tx, UserId user, std::string_view service, std::int64_t offset,
                        std::int64_t limit);
std::int64_t count(db::Db& db, db::Tx& tx, UserId user, std::string_view service);
// failed -> pending with attempts 0, or -> archived.
Clone requeue_failed(db::Db& db, db::Tx& tx, std::string_view id);
Clone archive(db::Db& db, db::Tx& tx, std::string_view id);

// The job queue.
struct Claimed {
  Clone clone;
  std::string lease_token;
};
// Pending clones, and processing ones whose lease ran out, past `max_attempts`: failed with
// attempts_exhausted. Returns them for their events.
std::vector<Clone> fail_exhausted(db::Db& db, db::Tx& tx, std::int64_t max_attempts);
// The oldest pending clone, or a processing one whose lease ran out (its worker is gone):
// processing, attempts + 1, leased for `lease_seconds`. SKIP LOCKED: workers never wait on
// each other.
std::optional<Claimed> claim(db::Db& db, db::Tx& tx, const std::string& lease_token, double lease_seconds);
// Each applies only while the lease token still matches (nullopt: the lease was lost).
std::optional<Clone> settle_ready(db::Db& db, db::Tx& tx, const Claimed& c, const std::string& voice_id,
                                  const std::string& profile_json, double sample_seconds);
std::optional<Clone> settle_failed(db::Db& db, db::Tx& tx, const Claimed& c, const std::string& reason,
                                   std::optional<double> sample_seconds);
std::optional<Clone> settle_requeue(db::Db& db, db::Tx& tx, const Claimed& c);

// A catalogue voice of the service and its stored features (none when voice search has not
// described the pair yet).
struct CandidateRow {
  std::string espeak_voice;
  std::string espeak_variant;
  std::optional<std::vector<float>> features;
};
std::vector<CandidateRow> candidates(db::Db& db, db::Tx& tx, std::string_view service);

}  // namespace mediagen::voices::store
