// The SQL of webhooks.hpp: secrets, payload fills, the delivery log and account endpoints.
#include <map>

#include "mediagen/db/fields.hpp"
#include "mediagen/db/pg.hpp"
#include "mediagen/webhooks/webhooks.hpp"

namespace mediagen::webhooks {
namespace {

#define MG_MICROS(col) "(extract(epoch from " col ") * 1000000)::bigint"

// Concurrent first uses: the insert that loses reads the winner's.
const db::Statement kAccountSecret{
    "webhooks_account_secret",
    "WITH ins AS (INSERT INTO webhook_secrets (user_id, secret) VALUES ($1, $2) ON CONFLICT (user_id) DO NOTHING"
    " RETURNING secret)"
    " SELECT secret FROM ins UNION ALL SELECT secret FROM webhook_secrets WHERE user_id = $1 LIMIT 1"};

// Every message of the oldest change of (order, subject) that has none: one per destination.
const db::Statement kFill{
    "webhooks_fill",
    "UPDATE webhook_messages SET payload = $3 WHERE order_id = $1::uuid AND subject_id = $2 AND payload IS NULL"
    " AND event_no = (SELECT min(event_no) FROM webhook_messages"
    "  WHERE order_id = $1::uuid AND subject_id = $2 AND payload IS NULL)"};

#define MG_MESSAGE_COLUMNS                                                                         \
  "m.id::text, m.type, m.status, m.url, m.next_attempt_at IS NULL, " MG_MICROS("m.next_attempt_at") \
  ", " MG_MICROS("m.created_at")

const db::Statement kOrderMessages{
    "webhooks_order_messages",
    "SELECT " MG_MESSAGE_COLUMNS " FROM webhook_messages m"
    " WHERE m.order_id = $1::uuid AND m.user_id = $2 AND m.endpoint_id IS NULL"
    " ORDER BY m.created_at, m.id LIMIT $3"};
const db::Statement kNoteEvent{
    "webhooks_note_event",
    "WITH n AS (SELECT nextval('webhook_event_no') AS v),"
    " ins AS (INSERT INTO webhook_messages (event_no, user_id, endpoint_id, subject_id, type, url, payload,"
    "  next_attempt_at)"
    "  SELECT n.v, e.user_id, e.id, $3, $2, e.url, $4, clock_timestamp() FROM n, webhook_endpoints e"
    "  WHERE e.user_id = $1 AND e.enabled AND $2 = ANY (e.events) RETURNING 1)"
    " SELECT pg_notify('mediagen_webhooks', '') WHERE EXISTS (SELECT 1 FROM ins)"};
const db::Statement kOrderOwned{"webhooks_order_owned",
                                "SELECT 1 FROM orders WHERE id = $1::uuid AND user_id = $2"};
const db::Statement kEndpointMessages{
    "webhooks_endpoint_messages",
    "SELECT " MG_MESSAGE_COLUMNS " FROM webhook_messages m"
    " WHERE m.endpoint_id = $1 AND (NOT $2 OR m.status = 'failed') ORDER BY m.created_at DESC, m.id LIMIT $3"};
const db::Statement kAttempts{
    "webhooks_attempts",
    "SELECT message_id::text, " MG_MICROS("at") ", status_code, error, duration_ms FROM webhook_attempts"
    " WHERE message_id = ANY ($1::uuid[]) ORDER BY message_id, attempt"};

#define MG_ENDPOINT_COLUMNS \
  "id, user_id, url, events, enabled, disabled_reason, secret, " MG_MICROS("created_at")

const db::Statement kAddEndpoint{
    "webhooks_add_endpoint",
    "INSERT INTO webhook_endpoints (user_id, url, events, secret) SELECT $1, $2, $3::text[], $4"
    " WHERE EXISTS (SELECT 1 FROM users WHERE id = $1) RETURNING " MG_ENDPOINT_COLUMNS};
const db::Statement kListEndpoints{"webhooks_list_endpoints",
                                   "SELECT " MG_ENDPOINT_COLUMNS " FROM webhook_endpoints WHERE user_id = $1 ORDER BY id"};
const db::Statement kRemoveEndpoint{"webhooks_remove_endpoint", "DELETE FROM webhook_endpoints WHERE id = $1 RETURNING 1"};
const db::Statement kEnableEndpoint{
    "webhooks_enable_endpoint",
    "UPDATE webhook_endpoints SET enabled = $2, disabled_reason = CASE WHEN $2 THEN NULL ELSE 'operator' END,"
    " failed_in_a_row = CASE WHEN $2 THEN 0 ELSE failed_in_a_row END, updated_at = now()"
    " WHERE id = $1 RETURNING " MG_ENDPOINT_COLUMNS};
const db::Statement kRotateEndpoint{
    "webhooks_rotate_endpoint",
    "UPDATE webhook_endpoints SET previous_secret = secret, previous_until = now() + $3 * interval '1 second',"
    " secret = $2, updated_at = now() WHERE id = $1 RETURNING " MG_ENDPOINT_COLUMNS};
const db::Statement kRedeliver{
    "webhooks_redeliver",
    "WITH u AS (UPDATE webhook_messages SET status = 'pending', next_attempt_at = now(), lease_token = NULL,"
    "  locked_until = NULL, finished_at = NULL WHERE id = $1::uuid RETURNING 1)"
    " SELECT pg_notify('mediagen_webhooks', '') FROM u"};

Endpoint endpoint_from(const pqxx::row& r) {
  Endpoint e{.id = r[0].as<std::int64_t>(),
             .user = UserId{r[1].as<std::int64_t>()},
             .url = r[2].as<std::string>(),
             .enabled = r[4].as<bool>(),
             .disabled_reason = db::optional_of<std::string>(r[5]),
             .secret = r[6].as<std::string>(),
             .created_at = db::time_from_micros(r[7])};
  auto array = r[3].as_array();
  for (auto item = array.get_next(); item.first != pqxx::array_parser::juncture::done; item = array.get_next()) {
    if (item.first == pqxx::array_parser::juncture::string_value) e.events.push_back(item.second);
  }
  return e;
}

std::vector<MessageLog> logs_from(db::Db& db, db::Tx& tx, const pqxx::result& rows) {
  std::vector<MessageLog> out;
  std::vector<std::string> ids;
  std::map<std::string, std::size_t> index;
  for (const auto& r : rows) {
    MessageLog m{.id = r[0].as<std::string>(), .type = r[1].as<std::string>(), .status = parse_message_status(r[2].as<std::string>()).value_or(MessageStatus::failed),
                 .url = r[3].as<std::string>(), .created_at = db::time_from_micros(r[6])};
    if (!r[4].as<bool>()) m.next_attempt_at = db::time_from_micros(r[5]);
    index[m.id] = out.size();
    ids.push_back(m.id);
    out.push_back(std::move(m));
  }
  if (ids.empty()) return out;
  for (const auto& r : db.exec(tx, kAttempts, db::text_array(ids))) {
    out[index.at(r[0].as<std::string>())].attempts.push_back(
        Attempt{.at = db::time_from_micros(r[1]),
                .status_code = db::optional_of<int>(r[2]),
                .error = db::optional_of<std::string>(r[3]),
                .duration_ms = r[4].as<std::int64_t>()});
  }
  return out;
}

std::optional<Endpoint> one_endpoint(const pqxx::result& rows) {
  if (rows.empty()) return std::nullopt;
  return endpoint_from(rows[0]);
}

}  // namespace

std::string account_secret(db::Db& db, UserId user) {
  return db::read(db, [&](db::Tx& tx) { return db.exec(tx, kAccountSecret, user.value, new_secret()); })[0][0]
      .as<std::string>();
}

bool fill_order_event(db::Db& db, std::string_view order_id, std::string_view subject_id, std::string_view data) {
  const auto rows = db::read(db, [&](db::Tx& tx) {
    return db.exec(tx, kFill, std::string(order_id), std::string(subject_id), std::string(data));
  });
  return rows.affected_rows() > 0;
}

void note_event(db::Db& db, UserId user, std::string_view type, std::string_view subject_id, std::string_view data) {
  db::read(db, [&](db::Tx& tx) {
    db.exec(tx, kNoteEvent, user.value, std::string(type), std::string(subject_id), std::string(data));
  });
}

std::optional<std::vector<MessageLog>> order_deliveries(db::Db& db, UserId user, std::string_view order_id,
                                                         std::size_t limit) {
  return db::transact(db, [&](db::Tx& tx) -> std::optional<std::vector<MessageLog>> {
    if (db.exec(tx, kOrderOwned, std::string(order_id), user.value).empty()) return std::nullopt;
    const auto rows = db.exec(tx, kOrderMessages, std::string(order_id), user.value, static_cast<std::int64_t>(limit));
    return logs_from(db, tx, rows);
  });
}

std::optional<Endpoint> add_endpoint(db::Db& db, UserId user, std::string_view url, const std::vector<std::string>& events) {
  return db::read(db, [&](db::Tx& tx) {
    return one_endpoint(db.exec(tx, kAddEndpoint, user.value, std::string(url), db::text_array(events), new_secret()));
  });
}

std::vector<Endpoint> list_endpoints(db::Db& db, UserId user) {
  std::vector<Endpoint> out;
  db::read(db, [&](db::Tx& tx) {
    for (const auto& r : db.exec(tx, kListEndpoints, user.value)) out.push_back(endpoint_from(r));
  });
  return out;
}

bool remove_endpoint(db::Db& db, std::int64_t id) {
  return !db::read(db, [&](db::Tx& tx) { return db.exec(tx, kRemoveEndpoint, id); }).empty();
}

std::optional<Endpoint> set_endpoint_enabled(db::Db& db, std::int64_t id, bool enabled) {
  return db::read(db, [&](db::Tx& tx) { return one_endpoint(db.exec(tx, kEnableEndpoint, id, enabled)); });
}

std::optional<Endpoint> rotate_endpoint_secret(db::Db& db, std::int64_t id, std::chrono::seconds overlap) {
  return db::read(db, [&](db::Tx& tx) {
    return one_endpoint(db.exec(tx, kRotateEndpoint, id, new_secret(), static_cast<std::int64_t>(overlap.count())));
  });
}

std::vector<MessageLog> endpoint_deliveries(db::Db& db, std::int64_t id, bool failed_only, std::size_t limit) {
  return db::transact(db, [&](db::Tx& tx) {
    return logs_from(db, tx, db.exec(tx, kEndpointMessages, id, failed_only, static_cast<std::int64_t>(limit)));
  });
}

bool redeliver(db::Db& db, std::string_view message_id) {
  return !db::read(db, [&](db::Tx& tx) { return db.exec(tx, kRedeliver, std::string(message_id)); }).empty();
}

}  // namespace mediagen::webhooks
