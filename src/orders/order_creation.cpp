#include "order_creation.hpp"
#include "mediagen/core/json_text.hpp"

#include <chrono>

#include <nlohmann/json.hpp>

#include "idempotency.hpp"
#include "mediagen/billing/ledger.hpp"
#include "mediagen/cache/token_window.hpp"
#include "mediagen/core/uuid.hpp"
#include "mediagen/db/pg.hpp"
#include "mediagen/orders/order.hpp"
#include "mediagen/orders/order_json.hpp"
#include "mediagen/orders/order_money.hpp"
#include "key_tokens.hpp"
#include "order_pricing.hpp"
#include "refused.hpp"
#include "order_request.hpp"

namespace mediagen::orders {
namespace {

// Assets, the maintenance switch and the live subscription (its slots and the quota it left),
// in one round trip. The quota row is locked so concurrent orders split it exactly.
const db::Statement kContext{
    "orders_create_context",
    "SELECT (SELECT id FROM currency_assets WHERE is_default AND deleted_at IS NULL),"
    " (SELECT id FROM currency_assets WHERE kind = 'tokens'),"
    " COALESCE((SELECT enabled FROM service_switches WHERE name = 'maintenance'), false),"
    " s.id, p.concurrency_slots"
    " FROM (SELECT 1) one"
    " LEFT JOIN LATERAL (SELECT id, plan_id FROM subscriptions WHERE user_id = $1 AND cancelled_at IS NULL"
    "  AND starts_at <= now() AND expires_at > now() ORDER BY expires_at DESC LIMIT 1) s ON true"
    " LEFT JOIN plans p ON p.id = s.plan_id"};
const db::Statement kLockQuota{
    "orders_lock_quota",
    "SELECT balance FROM ledger_accounts WHERE kind = 'quota' AND owner = 'user:' || $1::text AND asset_id = $2"
    " FOR UPDATE"};
// Serialises one user's creations while slots are counted.
const db::Statement kLockUser{"orders_lock_user", "SELECT 1 FROM users WHERE id = $1 FOR UPDATE"};
const db::Statement kActiveOrders{
    "orders_active_count",
    "SELECT count(*) FROM orders WHERE user_id = $1 AND status IN ('created', 'pending', 'in_progress')"};
const db::Statement kInsertOrder{
    "orders_insert",
    "INSERT INTO orders (id, user_id, api_key_id, task_type, service_key, model_id, template_id, config_snapshot,"
    " config_override, generation_mode, task_data, engine_request, input_text, asset_id, price_per_1k_minor, capacity,"
    " capacity_unit, price_units, tokens_from_quota, tokens_from_payg, retry_of)"
    " VALUES ($1, $2, $3, $4, $5, NULLIF($6, ''), NULLIF($7, '')::uuid, $8::jsonb, $9::jsonb, $10, $11::jsonb,"
    "  $12::jsonb, $13, $14, $15, $16, $17, $18, $19, $20, NULLIF($21, '')::uuid)"
    " RETURNING (extract(epoch from created_at) * 1000000)::bigint"};
// Every chunk in one statement (never one per chunk). The workers are woken after the commit
// (OrderWriteOptions::on_queued), not by NOTIFY.
const db::Statement kInsertItems{
    "orders_insert_items",
    "WITH ins AS (INSERT INTO order_items (order_id, item_type, chunk_index, paragraph_index, text,"
    "  original_text_length, current_text_length, free_length, billable_length, max_billable_length, max_raw_length,"
    "  raw_length, capacity_unit, price_units, quota_tokens, payg_minor, remaining_locked, queued_at)"
    " SELECT $1, 'chunk', t.i, t.p, t.txt, t.len, t.len, t.bill, t.bill, t.maxb, $2, t.raw, $3, t.tok, t.q, t.m, t.tok,"
    "  o.created_at"
    " FROM orders o, unnest($4::int[], $5::int[], $6::text[], $7::int[], $8::int[], $9::int[], $10::int[],"
    "  $11::bigint[], $12::bigint[], $13::bigint[]) AS t(i, p, txt, len, bill, maxb, raw, tok, q, m)"
    " WHERE o.id = $1 RETURNING 1)"
    " SELECT count(*) FROM ins"};

// The template-less services (sfx, music): the service's first active model and its engine.
const db::Statement kPromptService{
    "orders_prompt_service",
    "SELECT s.key, COALESCE(m.model_id, ''), COALESCE(m.price_per_1k_minor, 0), s.engine FROM services s"
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


TimePoint from_micros(std::int64_t us) { return TimePoint{std::chrono::microseconds{us}}; }

std::string engine_request_json(const templates::SpeechSetup& setup, std::string_view engine) {
  nlohmann::json settings = nlohmann::json::object();
  if (setup.effective.stability) settings["stability"] = *setup.effective.stability;
  if (setup.effective.similarity_boost) settings["similarity_boost"] = *setup.effective.similarity_boost;
  if (setup.effective.speed) settings["speed"] = *setup.effective.speed;
  if (setup.effective.use_speaker_boost) settings["use_speaker_boost"] = *setup.effective.use_speaker_boost;
  return to_json_text(nlohmann::json{{"engine", engine},
                                     {"voice", setup.voice.espeak_voice},
                                     {"variant", setup.voice.espeak_variant},
                                     {"language", setup.language_code.value_or("")},
                                     {"settings", std::move(settings)}});
}

}  // namespace

void use_speech_setup(NewOrder& order, const templates::SpeechSetup& setup) {
  order.model_id = setup.model.model_id;
  order.config_snapshot = setup.config_json;
  order.chunker = {.capacity = static_cast<std::size_t>(setup.model.capacity),
                   .unit = setup.model.capacity_unit,
                   .mode = order.mode};
  order.price_per_1k_minor = setup.model.price_per_1k_minor;
  order.engine_request = engine_request_json(setup, "espeak");
}

bool use_prompt_service(db::Db& db, const std::string& task_type, NewOrder& order) {
  auto rows = db::read(db, [&](pqxx::transaction_base& tx) { return db.exec(tx, kPromptService, task_type); });
  if (rows.empty()) return false;
  order.service_key = rows[0][0].as<std::string>();
  order.model_id = rows[0][1].as<std::string>();
  order.price_per_1k_minor = rows[0][2].as<std::int64_t>();
  order.chunker = {.capacity = kPromptCapacity, .unit = CapacityUnit::chars, .mode = GenerationMode::ordinary};
  order.engine_request = "{\"engine\":\"" + rows[0][3].as<std::string>() + "\",\"task_type\":\"" + task_type + "\"}";
  return true;
}

Result<OperationReply> insert_order(db::Db& db, cache::Redis& redis, const Caller& caller, const NewOrder& order,
                                    std::optional<ApiError> shape, const std::optional<IdempotencyKey>& idempotency,
                                    std::string_view idempotency_scope, int created_status) {
  const auth::Principal& principal = caller.principal;
  const UserId user = principal.user_id;
  const std::int64_t tokens = static_cast<std::int64_t>(order.plan.billable_chars);

  try {
    KeyTokens key_tokens(redis, caller);
    auto reply = db::transact(db, [&](pqxx::work& tx) -> OperationReply {
      if (idempotency) {
        auto claimed = claim_idempotency_key(db, tx, user, idempotency_scope, *idempotency);
        if (!claimed) throw Refused{claimed.error()};
        if (*claimed) return **claimed;  // a replay: nothing else is written
      }
      const auto ctx = db.exec(tx, kContext, user.value);
      const AssetId money{ctx[0][0].as<std::int64_t>()};
      const AssetId token_asset{ctx[0][1].as<std::int64_t>()};
      const bool maintenance = ctx[0][2].as<bool>();
      const bool subscribed = !ctx[0][3].is_null();

      // 429: concurrency slots of the plan, then the key's token pool.
      if (subscribed && !ctx[0][4].is_null()) {
        db.exec(tx, kLockUser, user.value);
        const auto active = db.exec(tx, kActiveOrders, user.value)[0][0].as<std::int64_t>();
        if (active >= ctx[0][4].as<std::int64_t>()) throw Refused{ApiError::refusal(429, Reason::concurrency_limit_exceeded)};
      }
      key_tokens.take(db, tx, tokens);

      // 402: subscription quota first, the rest from the balance.
      std::int64_t quota = 0;
      if (subscribed) {
        const auto rows = db.exec(tx, kLockQuota, user.value, token_asset.value);
        if (!rows.empty()) quota = rows[0][0].as<std::int64_t>();
      }
      std::vector<std::int64_t> chunk_tokens;
      chunk_tokens.reserve(order.plan.chunks.size());
      for (const auto& c : order.plan.chunks) chunk_tokens.push_back(static_cast<std::int64_t>(c.billable_length));
      const OrderPrice price = price_order(chunk_tokens, quota, order.price_per_1k_minor);

      const std::string order_id = random_uuid();
      const OrderAccounts accounts{user, order_id, money, token_asset};
      try {
        lock_order(db, tx, accounts, {.quota_tokens = price.from_quota, .minor = price.minor});
      } catch (const billing::InsufficientBalance&) {
        throw Refused{ApiError::refusal(402, Reason::insufficient_balance)};
      }

      // 503, then 422.
      if (maintenance) throw Refused{ApiError::refusal(503, Reason::service_maintenance)};
      if (shape) throw Refused{*shape};

      const auto created = db.exec(
          tx, kInsertOrder, order_id, user.value, principal.key_id.value, order.task_type, order.service_key,
          order.model_id, order.template_id.value_or(""), order.config_snapshot, order.config_override,
          std::string(to_string(order.mode)), order.task_data, order.engine_request, order.input_text, money.value,
          order.price_per_1k_minor, static_cast<std::int64_t>(order.chunker.capacity),
          std::string(to_string(order.chunker.unit)), price.minor, price.from_quota, price.from_payg,
          order.retry_of.value_or(""));

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
      db.exec(tx, kInsertItems, order_id, static_cast<std::int64_t>(order.chunker.capacity),
              std::string(to_string(order.chunker.unit)), int_array(index), optional_int_array(paragraph),
              db::text_array(texts), int_array(length), int_array(billable), int_array(max_billable), int_array(raw),
              int_array(chunk_tokens), int_array(quota_part), int_array(money_part));

      Order o;
      o.id = order_id;
      o.user_id = user;
      o.task_type = order.task_type;
      o.status = OrderStatus::created;
      o.service_key = order.service_key;
      o.template_id = order.template_id;
      o.config_override_json = order.config_override;
      o.generation_mode = std::string(to_string(order.mode));
      o.price_units = price.minor;
      o.tokens_from_quota = price.from_quota;
      o.tokens_from_payg = price.from_payg;
      o.retry_of = order.retry_of;
      o.created_at = o.updated_at = from_micros(created[0][0].as<std::int64_t>());
      OperationReply answer{.status = created_status, .message = "orders.created", .data_json = order_json(o, caller.tz)};
      if (idempotency) remember_reply(db, tx, user, *idempotency, answer);
      return answer;
    });
    if (!reply.replayed) key_tokens.keep();
    return reply;
  } catch (const Refused& refused) {
    return refused.error;
  }
}

}  // namespace mediagen::orders
