#include "outbox_store.hpp"

#include "mediagen/db/fields.hpp"
#include "mediagen/db/pg.hpp"
#include "mediagen/webhooks/webhooks.hpp"

namespace mediagen::webhooks {
namespace {

// Oldest due first, and per URL no more than it may still have in flight here ($4 the URLs with
// attempts in flight, $5 how many, $6 the cap per URL): one URL with a backlog cannot take every
// slot. An order event whose data is still to come waits for the grace (events of no order have
// no seq: the deliverer renders them at once). Lock order: the message rows only.
#define MG_DUE                                                                                          \
  "status = 'pending' AND next_attempt_at <= now() AND (locked_until IS NULL OR locked_until < now())" \
  " AND (payload IS NOT NULL OR order_id IS NULL OR created_at < now() - $2 * interval '1 millisecond')"
const db::Statement kClaim{
    "webhooks_claim",
    "WITH urls AS (SELECT DISTINCT url FROM webhook_messages WHERE " MG_DUE " LIMIT 1000),"
    " busy AS (SELECT u AS url, n FROM unnest($4::text[], $5::int[]) AS b(u, n)),"
    " cand AS (SELECT c.id, c.next_attempt_at FROM urls"
    "  CROSS JOIN LATERAL (SELECT m.id, m.next_attempt_at FROM webhook_messages m"
    "   WHERE m.url = urls.url AND " MG_DUE
    "   ORDER BY m.next_attempt_at"
    "   LIMIT greatest(0, $6 - COALESCE((SELECT n FROM busy WHERE busy.url = urls.url), 0))) c"
    "  ORDER BY c.next_attempt_at LIMIT $1),"
    // The due test again here, where the row is locked: a row another instance claimed and
    // committed after this statement's snapshot is re-read, fails it, and is left alone.
    " picked AS (SELECT id FROM webhook_messages WHERE id IN (SELECT id FROM cand) AND " MG_DUE
    "  FOR UPDATE SKIP LOCKED)"
    " UPDATE webhook_messages m SET lease_token = gen_random_uuid(),"
    "  locked_until = now() + $3 * interval '1 millisecond'"
    " FROM picked WHERE m.id = picked.id"
    " RETURNING m.id::text, m.lease_token::text, m.url, m.type, m.payload, COALESCE(m.order_id::text, ''),"
    "  m.subject_id, m.user_id, m.endpoint_id, m.attempts + 1, (extract(epoch from m.created_at) * 1000000)::bigint,"
    "  CASE WHEN m.endpoint_id IS NULL THEN (SELECT ws.secret FROM webhook_secrets ws WHERE ws.user_id = m.user_id)"
    "   ELSE (SELECT e.secret FROM webhook_endpoints e WHERE e.id = m.endpoint_id) END,"
    "  (SELECT e.previous_secret FROM webhook_endpoints e WHERE e.id = m.endpoint_id AND e.previous_until > now()),"
    "  CASE WHEN m.endpoint_id IS NULL"
    "   THEN COALESCE((SELECT w.stopped_at IS NULL FROM order_webhooks w WHERE w.order_id = m.order_id), false)"
    "   ELSE COALESCE((SELECT e.enabled FROM webhook_endpoints e WHERE e.id = m.endpoint_id), false) END"};

const db::Statement kFillClaimed{
    "webhooks_fill_claimed",
    "WITH f AS (UPDATE webhook_messages SET payload = $2"
    "  WHERE event_no = (SELECT event_no FROM webhook_messages WHERE id = $1::uuid) AND payload IS NULL"
    "  RETURNING id, payload)"
    " SELECT COALESCE((SELECT payload FROM f WHERE id = $1::uuid),"
    "  (SELECT payload FROM webhook_messages WHERE id = $1::uuid))"};

// The statuses written here are the outbox's own ('pending', 'delivered', 'failed').
const db::Statement kRecord{
    "webhooks_record",
    "WITH m AS ("
    "  UPDATE webhook_messages SET attempts = attempts + 1, status = $3,"
    "   next_attempt_at = CASE WHEN $3 = 'pending' THEN now() + $4 * interval '1 second' END,"
    "   finished_at = CASE WHEN $3 = 'pending' THEN NULL ELSE now() END,"
    "   lease_token = NULL, locked_until = NULL"
    "  WHERE id = $1::uuid AND lease_token = $2::uuid RETURNING id, attempts)"
    " INSERT INTO webhook_attempts (message_id, attempt, at, status_code, error, duration_ms)"
    " SELECT id, attempts, to_timestamp($5::double precision / 1000000), $6, $7, $8 FROM m"
    " ON CONFLICT (message_id, attempt) DO NOTHING RETURNING 1"};
const db::Statement kEndpointDelivered{
    "webhooks_endpoint_delivered",
    "UPDATE webhook_endpoints SET failed_in_a_row = 0 WHERE id = $1 AND failed_in_a_row <> 0"};
const db::Statement kEndpointFailed{
    "webhooks_endpoint_failed",
    "UPDATE webhook_endpoints SET failed_in_a_row = failed_in_a_row + 1,"
    " enabled = enabled AND failed_in_a_row + 1 < $2,"
    " disabled_reason = CASE WHEN enabled AND failed_in_a_row + 1 >= $2 THEN 'failing' ELSE disabled_reason END,"
    " updated_at = now()"
    " WHERE id = $1 RETURNING COALESCE(disabled_reason = 'failing' AND failed_in_a_row = $2, false)"};
const db::Statement kEndpointGone{
    "webhooks_endpoint_gone",
    "UPDATE webhook_endpoints SET enabled = false, disabled_reason = 'gone', updated_at = now()"
    " WHERE id = $1 AND enabled RETURNING 1"};
const db::Statement kOrderGone{"webhooks_order_gone",
                               "UPDATE order_webhooks SET stopped_at = now() WHERE order_id = $1::uuid AND stopped_at IS NULL"};
const db::Statement kDropInactive{
    "webhooks_drop_inactive",
    "UPDATE webhook_messages SET status = 'failed', next_attempt_at = NULL, finished_at = now(),"
    " lease_token = NULL, locked_until = NULL WHERE id = $1::uuid AND lease_token = $2::uuid"};
const db::Statement kBacklog{
    "webhooks_backlog",
    "SELECT count(*), (extract(epoch FROM min(GREATEST(next_attempt_at, COALESCE(locked_until, next_attempt_at),"
    "  CASE WHEN payload IS NULL AND order_id IS NOT NULL THEN created_at + $1 * interval '1 millisecond'"
    "   ELSE next_attempt_at END)) - now()) * 1000)::bigint"
    " FROM webhook_messages WHERE status = 'pending'"};

MessageStatus status_after(Ending e) {
  switch (e) {
    case Ending::delivered: return MessageStatus::delivered;
    case Ending::retry: return MessageStatus::pending;
    case Ending::failed:
    case Ending::gone: return MessageStatus::failed;
  }
  return MessageStatus::failed;
}

}  // namespace

std::vector<Claimed> claim_due(db::Db& db, const ClaimLimits& limits) {
  std::vector<Claimed> out;
  std::vector<std::string> urls;
  std::string counts = "{";
  for (const auto& [url, n] : limits.in_flight) {
    if (!urls.empty()) counts += ',';
    urls.push_back(url);
    counts += std::to_string(n);
  }
  counts += '}';
  db::read(db, [&](db::Tx& tx) {
    const auto rows = db.exec(tx, kClaim, limits.total, static_cast<std::int64_t>(limits.grace.count()),
                              static_cast<std::int64_t>(limits.lease.count()), db::text_array(urls), counts,
                              limits.per_url);
    for (const auto& r : rows) {
      Claimed c{.id = r[0].as<std::string>(),
                .lease = r[1].as<std::string>(),
                .url = r[2].as<std::string>(),
                .type = r[3].as<std::string>(),
                .payload = db::optional_of<std::string>(r[4]),
                .order_id = r[5].as<std::string>(),
                .subject_id = r[6].as<std::string>(),
                .user_id = r[7].as<std::int64_t>(),
                .endpoint_id = db::optional_of<std::int64_t>(r[8]),
                .attempt = r[9].as<int>(),
                .created_at = db::time_from_micros(r[10]),
                .active = r[13].as<bool>()};
      if (!r[11].is_null()) c.secrets.push_back(r[11].as<std::string>());
      if (!r[12].is_null()) c.secrets.push_back(r[12].as<std::string>());
      out.push_back(std::move(c));
    }
  });
  return out;
}

std::optional<std::string> fill_claimed(db::Db& db, const Claimed& message, const std::string& data) {
  const auto rows = db::read(db, [&](db::Tx& tx) { return db.exec(tx, kFillClaimed, message.id, data); });
  if (rows.empty() || rows[0][0].is_null()) return std::nullopt;
  return rows[0][0].as<std::string>();
}

Recorded record_outcome(db::Db& db, const Claimed& message, const Outcome& outcome, int failed_in_a_row_to_disable) {
  return db::transact(db, [&](db::Tx& tx) {
    Recorded out;
    const auto at_us = std::chrono::duration_cast<std::chrono::microseconds>(outcome.at.time_since_epoch()).count();
    const auto rows = db.exec(tx, kRecord, message.id, message.lease, std::string(to_string(status_after(outcome.ending))),
                              static_cast<std::int64_t>(outcome.retry_in.count()), at_us, outcome.status_code,
                              outcome.error, outcome.duration_ms);
    if (rows.empty()) {
      out.lease_held = false;
      return out;
    }
    if (outcome.ending == Ending::gone) {
      if (message.endpoint_id) {
        out.endpoint_disabled = !db.exec(tx, kEndpointGone, *message.endpoint_id).empty();
      } else {
        db.exec(tx, kOrderGone, message.order_id);
      }
    } else if (message.endpoint_id && outcome.ending == Ending::delivered) {
      db.exec(tx, kEndpointDelivered, *message.endpoint_id);
    } else if (message.endpoint_id && outcome.ending == Ending::failed) {
      const auto e = db.exec(tx, kEndpointFailed, *message.endpoint_id, failed_in_a_row_to_disable);
      out.endpoint_disabled = !e.empty() && e[0][0].as<bool>();
    }
    return out;
  });
}

void drop_inactive(db::Db& db, const Claimed& message) {
  db::read(db, [&](db::Tx& tx) { db.exec(tx, kDropInactive, message.id, message.lease); });
}

Backlog backlog(db::Db& db, std::chrono::milliseconds grace) {
  const auto rows = db::read(db, [&](db::Tx& tx) { return db.exec(tx, kBacklog, static_cast<std::int64_t>(grace.count())); });
  return Backlog{.pending = rows[0][0].as<std::int64_t>(), .next_due_ms = db::optional_of<std::int64_t>(rows[0][1])};
}

}  // namespace mediagen::webhooks
