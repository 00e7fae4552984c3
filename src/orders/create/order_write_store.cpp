// The SQL of order creation (see order_write_store.hpp).
#include "mediagen/orders/create.hpp"

#include <nlohmann/json.hpp>

#include "mediagen/core/json_text.hpp"
#include "mediagen/db/fields.hpp"
#include "mediagen/db/pg.hpp"

namespace mediagen::orders {
namespace {

// Assets, the maintenance and confirm-mode switches, the service's pay-as-you-go switch, the
// user's policy cooldown and the live subscription (its slots, whether its plan entitles the
// service and the service's ceiling), in one round trip.
#define MG_CONTEXT_COLUMNS(SERVICE)                                                                         \
  "SELECT (SELECT id FROM currency_assets WHERE is_default AND deleted_at IS NULL),"                        \
  " (SELECT id FROM currency_assets WHERE kind = 'tokens'),"                                                \
  " COALESCE((SELECT enabled FROM service_switches WHERE name = 'maintenance'), false),"                    \
  " s.id, p.concurrency_slots, l.id IS NOT NULL, l.usage_limit,"                                            \
  " (extract(epoch from s.starts_at) * 1000000)::bigint,"                                                   \
  " COALESCE((SELECT payg_enabled FROM services WHERE key = " SERVICE "), true),"                           \
  " COALESCE((SELECT enabled FROM service_switches WHERE name = 'payg_confirm'), false),"                   \
  " (SELECT code FROM currency_assets WHERE is_default AND deleted_at IS NULL),"                            \
  " (SELECT (extract(epoch from blocked_until) * 1000000)::bigint FROM policy_cooldowns WHERE user_id = $1),"      \
  " (SELECT counter FROM service_catalogue_version)"
#define MG_CONTEXT_FROM(SERVICE)                                                                            \
  " FROM (SELECT 1) one"                                                                                    \
  " LEFT JOIN LATERAL (SELECT id, plan_id, starts_at FROM subscriptions WHERE user_id = $1 AND cancelled_at IS NULL" \
  "  AND starts_at <= now() AND expires_at > now() ORDER BY expires_at DESC LIMIT 1) s ON true"              \
  " LEFT JOIN plans p ON p.id = s.plan_id"                                                                  \
  " LEFT JOIN plan_limits l ON l.plan_id = p.id AND l.service_id = (SELECT id FROM services WHERE key = " SERVICE ")"

const db::Statement kContext{"orders_create_context", MG_CONTEXT_COLUMNS("$2") MG_CONTEXT_FROM("$2")};
// The same for an order made from template $2, read in the same statement: its owner, service,
// settings and whether it was deleted (no row: no such template). The context is the template's
// service's.
const db::Statement kTemplateContext{
    "orders_create_template_context",
    "WITH tp AS (SELECT user_id, service_key, config::text AS config, deleted_at IS NOT NULL AS deleted"
    " FROM templates WHERE id = $2::uuid) " MG_CONTEXT_COLUMNS("(SELECT service_key FROM tp)")
    ", tp.user_id, tp.service_key, tp.config, tp.deleted" MG_CONTEXT_FROM("(SELECT service_key FROM tp)")
    " LEFT JOIN tp ON true"};
#undef MG_CONTEXT_COLUMNS
#undef MG_CONTEXT_FROM
// What the user's orders on one service charged or still hold locked since a time (the period's
// usage against a plan's per-service ceiling).
const db::Statement kServiceUsage{
    "orders_service_usage",
    "SELECT COALESCE(sum(i.consumed_units + i.remaining_locked), 0)::bigint FROM orders o"
    " JOIN order_items i ON i.order_id = o.id"
    " WHERE o.user_id = $1 AND o.service_key = $2 AND o.created_at >= to_timestamp($3::double precision / 1000000)"};
const db::Statement kLockQuota{
    "orders_lock_quota",
    "SELECT balance FROM ledger_accounts WHERE kind = 'quota' AND owner = 'user:' || $1::text AND asset_id = $2"
    " FOR UPDATE"};
// Serialises one user's creations while slots are counted.
const db::Statement kOrderExists{"orders_exists", "SELECT 1 FROM orders WHERE id = $1::uuid"};
// A confirmed top-up quote, spent on the order it pays for; nothing when it was spent before.
const db::Statement kSpendQuote{
    "orders_spend_quote",
    "INSERT INTO topup_quote_uses (nonce, user_id, order_id) VALUES ($1, $2, $3::uuid)"
    " ON CONFLICT (nonce) DO NOTHING RETURNING 1"};
const db::Statement kLockUser{"orders_lock_user", "SELECT 1 FROM users WHERE id = $1 FOR UPDATE"};
const db::Statement kActiveOrders{
    "orders_active_count",
    "SELECT count(*) FROM orders WHERE user_id = $1 AND status IN ('created', 'pending', 'in_progress')"};
// The order row, every chunk and their texts in one statement (never one per chunk), which also
// returns the transaction's id (db::KnownXid). The chunks take the order row from the first part's
// RETURNING: what a statement inserts is not visible to its own scans. Chunk ids are made in a
// MATERIALIZED part so that a chunk and its text get the same one. The workers are woken after
// the commit (OrderWriteOptions::on_queued), not by NOTIFY.
const db::Statement kInsertOrder{
    "orders_insert_with_items",
    "WITH o AS ("
    "  INSERT INTO orders (id, user_id, api_key_id, task_type, service_key, model_id, template_id, config_snapshot,"
    "   config_override, generation_mode, task_data, engine_request, input_text, asset_id, price_per_1k_minor, capacity,"
    "   capacity_unit, price_units, tokens_from_quota, tokens_from_payg, retry_of)"
    "  VALUES ($1, $2, $3, $4, $5, NULLIF($6, ''), NULLIF($7, '')::uuid, $8::jsonb, $9::jsonb, $10, $11::jsonb,"
    "   $12::jsonb, $13, $14, $15, $16, $17, $18, $19, $20, NULLIF($21, '')::uuid)"
    "  RETURNING id, created_at),"
    " t AS MATERIALIZED ("
    "  SELECT uuid_v7() AS id, u.* FROM unnest($22::int[], $23::int[], $24::text[], $25::int[], $26::int[],"
    "   $27::int[], $28::int[], $29::bigint[], $30::bigint[], $31::bigint[])"
    "   AS u(i, p, txt, len, bill, maxb, raw, tok, q, m)),"
    " ins AS ("
    "  INSERT INTO order_items (id, order_id, item_type, chunk_index, paragraph_index,"
    "   original_text_length, current_text_length, free_length, billable_length, max_billable_length, max_raw_length,"
    "   raw_length, capacity_unit, price_units, quota_tokens, payg_minor, remaining_locked, queued_at)"
    "  SELECT t.id, o.id, 'chunk', t.i, t.p, t.len, t.len, t.bill, t.bill, t.maxb, $16, t.raw, $17, t.tok, t.q, t.m,"
    "   t.tok, o.created_at"
    "  FROM o, t"
    "  RETURNING 1),"
    " texts AS (INSERT INTO order_item_texts (item_id, text) SELECT id, txt FROM t WHERE txt IS NOT NULL),"
    // The order's webhook ($32 url, $33 events), or - an order retry without one - the original's.
    " hook AS (INSERT INTO order_webhooks (order_id, url, events)"
    "  SELECT o.id, w.url, w.events FROM o, ("
    "   SELECT $32 AS url, $33::text[] AS events WHERE $32 <> ''"
    "   UNION ALL SELECT url, events FROM order_webhooks WHERE $32 = '' AND order_id = NULLIF($21, '')::uuid) w)"
    " SELECT (extract(epoch from o.created_at) * 1000000)::bigint, (SELECT count(*) FROM ins), txid_current() FROM o"};

// The template-less services (sfx, music): the service's first active model and its engine.
const db::Statement kPromptService{
    "orders_prompt_service",
    "SELECT s.key, COALESCE(m.model_id, ''), COALESCE(m.price_per_1k_minor, 0), s.engine,"
    " COALESCE(s.upstream::text, '') FROM services s"
    " LEFT JOIN LATERAL (SELECT model_id, price_per_1k_minor FROM service_models"
    "  WHERE service_id = s.id AND is_active ORDER BY position, id LIMIT 1) m ON true"
    " WHERE s.key = $1 AND s.is_active"};

std::string int_array(const std::vector<std::int64_t>& values) {
  std::string out = "{";
  for (std::size_t i = 0; i < values.size(); ++i) {
    if (i) out += ',';
    out += std::to_string(values[i]);
  }
  return out + "}";
}

std::string optional_int_array(const std::vector<std::optional<std::size_t>>& values) {
  std::string out = "{";
  for (std::size_t i = 0; i < values.size(); ++i) {
    if (i) out += ',';
    out += values[i] ? std::to_string(*values[i]) : "NULL";
  }
  return out + "}";
}

}  // namespace

namespace {

// The order's engine_request with its output format, which the workers and the stitcher read.
std::string with_output_format(const std::string& engine_request, const std::optional<engines::OutputFormat>& format) {
  if (!format) return engine_request;
  auto doc = nlohmann::json::parse(engine_request, nullptr, false);
  if (!doc.is_object()) return engine_request;
  doc["output_format"] = format->name();
  return to_json_text(doc);
}

CreateContext context_from(const pqxx::row& r) {
  const bool subscribed = !r[3].is_null();
  return CreateContext{.money = AssetId{r[0].as<std::int64_t>()},
                       .tokens = AssetId{r[1].as<std::int64_t>()},
                       .maintenance = r[2].as<bool>(),
                       .subscribed = subscribed,
                       .slots = !subscribed || r[4].is_null() ? std::nullopt
                                                              : std::optional<std::int64_t>(r[4].as<std::int64_t>()),
                       .entitled = subscribed && r[5].as<bool>(),
                       .usage_limit = subscribed && !r[6].is_null() ? std::optional(r[6].as<std::int64_t>()) : std::nullopt,
                       .period_start_us = subscribed ? r[7].as<std::int64_t>() : 0,
                       .payg_enabled = r[8].as<bool>(),
                       .confirm_mode = r[9].as<bool>(),
                       .currency = r[10].is_null() ? std::string() : r[10].as<std::string>(),
                       .blocked_until = r[11].is_null() ? std::nullopt : std::optional(db::time_from_micros(r[11])),
                       .catalogue_version = r[12].as<std::int64_t>()};
}

}  // namespace

CreateContext read_create_context(db::Db& db, db::Tx& tx, UserId user, const std::string& service) {
  return context_from(db.exec(tx, kContext, user.value, service)[0]);
}

CreateContext read_template_context(db::Db& db, db::Tx& tx, UserId user, const TemplateId& template_id,
                                    std::optional<TemplateRow>& row) {
  const auto rows = db.exec(tx, kTemplateContext, user.value, template_id.str());
  const auto& r = rows[0];
  row.reset();
  if (!r[13].is_null()) {
    row = TemplateRow{.owner = UserId{r[13].as<std::int64_t>()},
                      .service_key = r[14].as<std::string>(),
                      .config_json = r[15].as<std::string>(),
                      .deleted = r[16].as<bool>()};
  }
  return context_from(r);
}

bool spend_quote(db::Db& db, db::Tx& tx, std::string_view nonce, UserId user, std::string_view order_id) {
  return !db.exec(tx, kSpendQuote, std::string(nonce), user.value, std::string(order_id)).empty();
}

std::int64_t service_usage_since(db::Db& db, db::Tx& tx, UserId user, const std::string& service,
                                 std::int64_t since_us) {
  return db.exec(tx, kServiceUsage, user.value, service, since_us)[0][0].as<std::int64_t>();
}

std::int64_t lock_user_and_count_active(db::Db& db, db::Tx& tx, UserId user) {
  db.exec(tx, kLockUser, user.value);
  return db.exec(tx, kActiveOrders, user.value)[0][0].as<std::int64_t>();
}

std::int64_t lock_subscription_quota(db::Db& db, db::Tx& tx, UserId user, AssetId tokens) {
  const auto rows = db.exec(tx, kLockQuota, user.value, tokens.value);
  return rows.empty() ? 0 : rows[0][0].as<std::int64_t>();
}

OrderInserted insert_order_and_chunks(db::Db& db, db::Tx& tx, const OrderInsert& in) {
  const NewOrder& order = in.order;
  const OrderPrice& price = in.price;
  std::vector<std::int64_t> index, length, billable, max_billable, raw, quota_part, money_part;
  std::vector<std::optional<std::size_t>> paragraph;
  std::vector<std::string> texts;
  for (std::size_t i = 0; i < order.plan.chunks.size(); ++i) {
    const auto& c = order.plan.chunks[i];
    const auto fields = text_fields(c, order.chunker);
    index.push_back(static_cast<std::int64_t>(c.index));
    paragraph.push_back(c.paragraph_index);
    texts.push_back(c.text);
    length.push_back(static_cast<std::int64_t>(fields.length));
    billable.push_back(static_cast<std::int64_t>(fields.billable_length));
    max_billable.push_back(static_cast<std::int64_t>(fields.max_billable_length));
    raw.push_back(static_cast<std::int64_t>(fields.raw_length));
    quota_part.push_back(price.chunks[i].quota_tokens);
    money_part.push_back(price.chunks[i].payg_minor);
  }
  const std::string task_type(task_type_name(order.task_type));
  const std::string template_id = order.template_id ? order.template_id->str() : std::string();
  const std::string engine_request = with_output_format(order.engine_request, order.output_format);
  const auto row = db.exec(
      tx, kInsertOrder, in.order_id, in.user.value, in.key.value, task_type, order.service_key,
      order.model_id, template_id, order.config_snapshot, order.config_override,
      std::string(to_string(order.mode)), order.task_data, engine_request, order.input_text, in.money.value,
      order.price_per_1k_minor, static_cast<std::int64_t>(order.chunker.capacity),
      std::string(to_string(order.chunker.unit)), price.minor, price.from_quota, price.from_payg,
      order.retry_of.value_or(""), int_array(index), optional_int_array(paragraph), db::text_array(texts),
      int_array(length), int_array(billable), int_array(max_billable), int_array(raw), int_array(in.chunk_tokens),
      int_array(quota_part), int_array(money_part), order.webhook ? order.webhook->url : std::string(),
      db::text_array(order.webhook ? order.webhook->events : std::vector<std::string>{}))[0];
  return OrderInserted{.created_at = TimePoint{std::chrono::microseconds{row[0].as<std::int64_t>()}},
                       .xid = row[2].as<std::int64_t>()};
}

std::optional<PromptService> find_prompt_service(db::Db& db, TaskType task_type) {
  const std::string type(task_type_name(task_type));
  auto rows = db::read(db, [&](db::Tx& tx) { return db.exec(tx, kPromptService, type); });
  if (rows.empty()) return std::nullopt;
  return PromptService{rows[0][0].as<std::string>(), rows[0][1].as<std::string>(), rows[0][2].as<std::int64_t>(),
                       rows[0][3].as<std::string>(), rows[0][4].as<std::string>()};
}

bool order_exists(db::Db& db, db::Tx& tx, std::string_view order_id) {
  return !db.exec(tx, kOrderExists, std::string(order_id)).empty();
}

std::optional<engines::OutputFormat> output_format_of(std::string_view engine_request_json) {
  const auto doc = nlohmann::json::parse(engine_request_json, nullptr, false);
  if (!doc.is_object()) return std::nullopt;
  const auto it = doc.find("output_format");
  if (it == doc.end() || !it->is_string()) return std::nullopt;
  return engines::parse_output_format(it->get_ref<const std::string&>());
}

}  // namespace mediagen::orders
