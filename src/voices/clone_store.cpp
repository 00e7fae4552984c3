#include "clone_store.hpp"

#include <charconv>

#include "mediagen/db/fields.hpp"
#include "mediagen/db/pg.hpp"

namespace mediagen::voices::store {
namespace {

#define MG_CLONE_COLUMNS                                                                          \
  "id::text, user_id, service_key, name, status, voice_id, profile::text, failure_reason, sample_count," \
  " sample_seconds, attempts, (extract(epoch from created_at) * 1000000)::bigint,"                      \
  " (extract(epoch from updated_at) * 1000000)::bigint"

const db::Statement kLockUser{"clones_lock_user", "SELECT 1 FROM users WHERE id = $1 FOR UPDATE"};
const db::Statement kLimits{
    "clones_limits",
    "SELECT p.clone_limit, p.clone_limit_provider_d FROM subscriptions s JOIN plans p ON p.id = s.plan_id"
    " WHERE s.user_id = $1 AND s.cancelled_at IS NULL AND s.starts_at <= now() AND s.expires_at > now()"
    " ORDER BY s.expires_at DESC LIMIT 1"};
const db::Statement kPayg{"clones_payg", "SELECT payg_enabled FROM services WHERE key = $1"};
const db::Statement kCounted{
    "clones_counted",
    "SELECT count(*) FROM voice_clones WHERE user_id = $1 AND service_key = $2"
    " AND status IN ('pending', 'processing', 'ready')"};
const db::Statement kInsert{
    "clones_insert",
    "INSERT INTO voice_clones (id, user_id, service_key, name, sample_count, sample_bytes)"
    " VALUES ($1::uuid, $2, $3, $4, $5, $6) RETURNING " MG_CLONE_COLUMNS};
const db::Statement kFind{"clones_find", "SELECT " MG_CLONE_COLUMNS " FROM voice_clones WHERE id = $1::uuid"};
const db::Statement kFindLocked{"clones_find_locked",
                                "SELECT " MG_CLONE_COLUMNS " FROM voice_clones WHERE id = $1::uuid FOR UPDATE"};
// Newest first; the id breaks ties so pages never overlap.
const db::Statement kPage{"clones_page",
                          "SELECT " MG_CLONE_COLUMNS " FROM voice_clones WHERE user_id = $1 AND service_key = $2"
                          " ORDER BY created_at DESC, id DESC LIMIT $3 OFFSET $4"};
const db::Statement kCount{"clones_count",
                           "SELECT count(*) FROM voice_clones WHERE user_id = $1 AND service_key = $2"};
const db::Statement kRequeueFailed{
    "clones_requeue_failed",
    "UPDATE voice_clones SET status = 'pending', failure_reason = NULL, attempts = 0, updated_at = now()"
    " WHERE id = $1::uuid AND status = 'failed' RETURNING " MG_CLONE_COLUMNS};
const db::Statement kArchive{
    "clones_archive",
    "UPDATE voice_clones SET status = 'archived', lease_token = NULL, locked_until = NULL, updated_at = now()"
    " WHERE id = $1::uuid RETURNING " MG_CLONE_COLUMNS};
const db::Statement kFailExhausted{
    "clones_fail_exhausted",
    "UPDATE voice_clones SET status = 'failed', failure_reason = 'attempts_exhausted', lease_token = NULL,"
    " locked_until = NULL, updated_at = now()"
    " WHERE attempts >= $1 AND (status = 'pending' OR (status = 'processing' AND locked_until < now()))"
    " RETURNING " MG_CLONE_COLUMNS};
const db::Statement kClaim{
    "clones_claim",
    "WITH next AS (SELECT id AS next_id FROM voice_clones"
    "  WHERE status = 'pending' OR (status = 'processing' AND locked_until < now())"
    "  ORDER BY created_at, id LIMIT 1 FOR UPDATE SKIP LOCKED)"
    " UPDATE voice_clones c SET status = 'processing', attempts = c.attempts + 1, lease_token = $1::uuid,"
    " locked_until = now() + make_interval(secs => $2), updated_at = now()"
    " FROM next WHERE c.id = next.next_id RETURNING " MG_CLONE_COLUMNS};
const db::Statement kSettleReady{
    "clones_settle_ready",
    "UPDATE voice_clones SET status = 'ready', voice_id = $3, profile = $4::jsonb, sample_seconds = $5,"
    " failure_reason = NULL, lease_token = NULL, locked_until = NULL, updated_at = now()"
    " WHERE id = $1::uuid AND lease_token = $2::uuid AND status = 'processing' RETURNING " MG_CLONE_COLUMNS};
const db::Statement kSettleFailed{
    "clones_settle_failed",
    "UPDATE voice_clones SET status = 'failed', failure_reason = $3, sample_seconds = $4, lease_token = NULL,"
    " locked_until = NULL, updated_at = now()"
    " WHERE id = $1::uuid AND lease_token = $2::uuid AND status = 'processing' RETURNING " MG_CLONE_COLUMNS};
const db::Statement kSettleRequeue{
    "clones_settle_requeue",
    "UPDATE voice_clones SET status = 'pending', lease_token = NULL, locked_until = NULL, updated_at = now()"
    " WHERE id = $1::uuid AND lease_token = $2::uuid AND status = 'processing' RETURNING " MG_CLONE_COLUMNS};
const db::Statement kCandidates{
    "clones_candidates",
    "SELECT DISTINCT v.espeak_voice, v.espeak_variant, array_to_string(f.features, ',')"
    " FROM voices v JOIN services s ON s.id = v.service_id"
    " LEFT JOIN voice_features f ON f.espeak_voice = v.espeak_voice AND f.espeak_variant = v.espeak_variant"
    " WHERE s.key = $1 AND v.is_active ORDER BY 1, 2"};

Clone from_row(const pqxx::row& r) {
  Clone c;
  c.id = r[0].as<std::string>();
  c.user = UserId{r[1].as<std::int64_t>()};
  c.service = r[2].as<std::string>();
  c.name = r[3].as<std::string>();
  c.status = parse_clone_status(r[4].as<std::string>()).value_or(CloneStatus::failed);
  c.voice_id = db::optional_of<std::string>(r[5]);
  c.profile_json = db::optional_of<std::string>(r[6]);
  c.failure_reason = db::optional_of<std::string>(r[7]);
  c.sample_count = r[8].as<std::int64_t>();
  c.sample_seconds = db::optional_of<double>(r[9]);
  c.attempts = r[10].as<std::int64_t>();
  c.created_at = db::time_from_micros(r[11]);
  c.updated_at = db::time_from_micros(r[12]);
  return c;
}

std::optional<Clone> first(const pqxx::result& rows) {
  if (rows.empty()) return std::nullopt;
  return from_row(rows[0]);
}

std::optional<std::vector<float>> parse_floats(const pqxx::field& f) {
  if (f.is_null()) return std::nullopt;
  const auto text = f.as<std::string>();
  std::vector<float> out;
  const char* p = text.data();
  const char* end = p + text.size();
  while (p < end) {
    float v = 0;
    const auto [next, ec] = std::from_chars(p, end, v);
    if (ec != std::errc{}) return std::nullopt;
    out.push_back(v);
    p = next;
    if (p < end && *p == ',') ++p;
  }
  return out;
}

}  // namespace

bool lock_user(db::Db& db, db::Tx& tx, UserId user) { return !db.exec(tx, kLockUser, user.value).empty(); }

LimitContext limit_context(db::Db& db, db::Tx& tx, UserId user) {
  const auto rows = db.exec(tx, kLimits, user.value);
  if (rows.empty()) return {};
  return {true, db::optional_of<std::int64_t>(rows[0][0]), db::optional_of<std::int64_t>(rows[0][1])};
}

bool payg_enabled(db::Db& db, db::Tx& tx, std::string_view service) {
  const auto rows = db.exec(tx, kPayg, std::string(service));
  return rows.empty() || rows[0][0].as<bool>();
}

std::int64_t counted(db::Db& db, db::Tx& tx, UserId user, std::string_view service) {
  return db.exec(tx, kCounted, user.value, std::string(service))[0][0].as<std::int64_t>();
}

Clone insert(db::Db& db, db::Tx& tx, UserId user, const NewClone& c) {
  return from_row(db.exec(tx, kInsert, c.id, user.value, c.service, c.name, c.sample_count, c.sample_bytes)[0]);
}

std::optional<Clone> find(db::Db& db, db::Tx& tx, std::string_view id, bool lock) {
  return first(db.exec(tx, lock ? kFindLocked : kFind, std::string(id)));
}

std::vector<Clone> page(db::Db& db, db::Tx& tx, UserId user, std::string_view service, std::int64_t offset,
                        std::int64_t limit) {
  std::vector<Clone> out;
  for (const auto& r : db.exec(tx, kPage, user.value, std::string(service), limit, offset)) out.push_back(from_row(r));
  return out;
}

std::int64_t count(db::Db& db, db::Tx& tx, UserId user, std::string_view service) {
  return db.exec(tx, kCount, user.value, std::string(service))[0][0].as<std::int64_t>();
}

Clone requeue_failed(db::Db& db, db::Tx& tx, std::string_view id) {
  return from_row(db.exec(tx, kRequeueFailed, std::string(id))[0]);
}

Clone archive(db::Db& db, db::Tx& tx, std::string_view id) { return from_row(db.exec(tx, kArchive, std::string(id))[0]); }

std::vector<Clone> fail_exhausted(db::Db& db, db::Tx& tx, std::int64_t max_attempts) {
  std::vector<Clone> out;
  for (const auto& r : db.exec(tx, kFailExhausted, max_attempts)) out.push_back(from_row(r));
  return out;
}

std::optional<Claimed> claim(db::Db& db, db::Tx& tx, const std::string& lease_token, double lease_seconds) {
  auto clone = first(db.exec(tx, kClaim, lease_token, lease_seconds));
  if (!clone) return std::nullopt;
  return Claimed{std::move(*clone), lease_token};
}

std::optional<Clone> settle_ready(db::Db& db, db::Tx& tx, const Claimed& c, const std::string& voice_id,
                                  const std::string& profile_json, double sample_seconds) {
  return first(db.exec(tx, kSettleReady, c.clone.id, c.lease_token, voice_id, profile_json, sample_seconds));
}

std::optional<Clone> settle_failed(db::Db& db, db::Tx& tx, const Claimed& c, const std::string& reason,
                                   std::optional<double> sample_seconds) {
  return first(db.exec(tx, kSettleFailed, c.clone.id, c.lease_token, reason, sample_seconds));
}

std::optional<Clone> settle_requeue(db::Db& db, db::Tx& tx, const Claimed& c) {
  return first(db.exec(tx, kSettleRequeue, c.clone.id, c.lease_token));
}

std::vector<CandidateRow> candidates(db::Db& db, db::Tx& tx, std::string_view service) {
  std::vector<CandidateRow> out;
  for (const auto& r : db.exec(tx, kCandidates, std::string(service))) {
    out.push_back({r[0].as<std::string>(), r[1].as<std::string>(), parse_floats(r[2])});
  }
  return out;
}

}  // namespace mediagen::voices::store
