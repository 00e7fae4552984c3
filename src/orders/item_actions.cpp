// Item retry, bulk retry and regenerate (spec 3.2, 4.2, 7.1, 8.2). Each is one transaction:
// the new record, the lock it moves or takes, and (item retry) the Idempotency-Key answer.
//
// Money. A retry takes over its parent's base lock (free within free_length); text beyond it,
// up to max_billable_length, is a surcharge locked quota first, then money, and returned if
// the retry fails. A regeneration is paid in full the same way; its whole lock is kept in the
// surcharge columns so that a failure returns all of it and a success charges all of it.
#include <chrono>

#include <nlohmann/json.hpp>

#include "idempotency.hpp"
#include "item_rules.hpp"
#include "mediagen/billing/ledger.hpp"
#include "mediagen/cache/token_window.hpp"
#include "mediagen/core/uuid.hpp"
#include "mediagen/db/pg.hpp"
#include "mediagen/orders/order_json.hpp"
#include "mediagen/orders/order_money.hpp"
#include "mediagen/orders/order_reads.hpp"
#include "mediagen/orders/orders.hpp"
#include "mediagen/orders/text_rules.hpp"
#include "mediagen/templates/templates.hpp"
#include "key_tokens.hpp"
#include "order_locks.hpp"
#include "order_pricing.hpp"
#include "refused.hpp"

namespace mediagen::orders {
namespace {

using nlohmann::json;

const db::Statement kLockOrder{
    "items_lock_order",
    "SELECT user_id, asset_id, (SELECT id FROM currency_assets WHERE kind = 'tokens'), price_per_1k_minor,"
    " COALESCE((SELECT enabled FROM service_switches WHERE name = 'maintenance'), false)"
    " FROM orders WHERE id = $1 FOR UPDATE"};
const db::Statement kItemRow{
    "items_row",
    "SELECT text, original_text_length, free_length, max_billable_length, max_raw_length, capacity_unit,"
    " quota_tokens, payg_minor, remaining_locked"
    " FROM order_items WHERE id = $1 AND order_id = $2"};
const db::Statement kQuota{
    "items_quota",
    "SELECT COALESCE((SELECT a.balance FROM ledger_accounts a WHERE a.kind = 'quota' AND a.owner = 'user:' || $1::text"
    "  AND a.asset_id = $2 FOR UPDATE), 0)"
    " WHERE EXISTS (SELECT 1 FROM subscriptions WHERE user_id = $1::bigint AND cancelled_at IS NULL AND starts_at <= now()"
    "  AND expires_at > now())"};
// The new record; the parent hands its base lock over (retries) or keeps its own (regenerations).
const db::Statement kInsertRecord{
    "items_insert_record",
    "INSERT INTO order_items (id, order_id, item_type, chunk_index, parent_item_id, attempt_number, text,"
    " original_text_length, current_text_length, free_length, billable_length, max_billable_length, max_raw_length,"
    " raw_length, capacity_unit, price_units, quota_tokens, payg_minor, surcharge_tokens, surcharge_quota_tokens,"
    " surcharge_minor, remaining_locked)"
    " SELECT $1, p.order_id, $2, p.chunk_index, p.id, $3, $4, p.original_text_length, $5, p.free_length, $6,"
    "  p.max_billable_length, p.max_raw_length, $7, p.capacity_unit, $8, $9, $10, $11, $12, $13, $8"
    " FROM order_items p WHERE p.id = $14"};
const db::Statement kHandOver{
    "items_hand_over_lock",
    "UPDATE order_items SET remaining_locked = 0, quota_tokens = 0, payg_minor = 0, updated_at = now() WHERE id = $1"};
const db::Statement kRegenerations{
    "items_regenerations",
    "SELECT count(*) FROM order_items WHERE order_id = $1 AND chunk_index = $2 AND item_type = 'regeneration'"};
const db::Statement kSnapshot{
    "items_snapshot", "SELECT service_key, config_snapshot::text, task_type FROM orders WHERE id = $1"};


int http_status(Reason reason) {
  switch (reason) {
    case Reason::active_retry_exists:
    case Reason::stitch_in_progress: return 409;
    default: return 422;
  }
}

[[noreturn]] void refuse(Reason reason) { throw Refused{ApiError::refusal(http_status(reason), reason)}; }

// The request's optional text: a string of at most `max` code points, with something to speak.
Result<std::optional<std::string>> read_text(const json& body, std::size_t max) {
  if (!body.is_object()) return ApiError::validation("body", Message{"validation.object", {{"attribute", "body"}}});
  auto it = body.find("text");
  if (it == body.end() || it->is_null()) return std::optional<std::string>{};
  if (!it->is_string()) return ApiError::validation("text", Message{"validation.string", {{"attribute", "text"}}});
  const auto& text = it->get_ref<const std::string&>();
  if (text.empty()) return ApiError::validation("text", Message{"validation.required", {{"attribute", "text"}}});
  if (count_code_points(text) > max) {
    return ApiError::validation("text", Message{"validation.max_string", {{"attribute", "text"}, {"max", std::to_string(max)}}});
  }
  if (trim_spaces(strip_brackets(text)).empty()) {
    return ApiError::validation("text", Message{"validation.nothing_to_speak", {{"attribute", "text"}}});
  }
  return std::optional<std::string>{text};
}

struct Locked {
  Order order;
  OrderAccounts accounts;
  std::int64_t price_per_1k_minor = 0;
  bool maintenance = false;
};

// Locks the order's live items, then the order; 404 unless it is the caller's.
Locked lock_own_order(db::Db& db, pqxx::work& tx, UserId user, const std::string& order_id) {
  lock_live_items(db, tx, order_id);
  const auto rows = db.exec(tx, kLockOrder, order_id);
  if (rows.empty() || rows[0][0].as<std::int64_t>() != user.value) throw Refused{ApiError::not_found()};
  auto order = load_order(db, tx, order_id, true);
  if (!order) throw Refused{ApiError::not_found()};
  return Locked{std::move(*order),
                {user, order_id, AssetId{rows[0][1].as<std::int64_t>()}, AssetId{rows[0][2].as<std::int64_t>()}},
                rows[0][3].as<std::int64_t>(),
                rows[0][4].as<bool>()};
}

const Item& find_item(const Order& order, std::string_view item_id) {
  for (const auto& item : order.items) {
    if (item.id == item_id) return item;
  }
  throw Refused{ApiError::not_found()};
}

// The order's settings (template snapshot) must still pass the service's current schema
// (spec 7.1: 422 retry_config_outdated on item retry), and a text the content policy refuses
// is refused now rather than charged and flagged again.
void check_settings_and_text(db::Db& db, pqxx::work& tx, const Caller& caller, const std::string& order_id,
                             std::string_view text) {
  const auto rows = db.exec(tx, kSnapshot, order_id);
  if (rows.empty()) throw Refused{ApiError::not_found()};
  if (rows[0][2].as<std::string>() == "tts") {
    auto setup = templates::validate_stored_in(db, tx, rows[0][0].as<std::string>(), rows[0][1].as<std::string>());
    if (!setup) refuse(Reason::retry_config_outdated);
  }
  if (caller.blocked && caller.blocked(text)) refuse(Reason::content_blocked);
}

struct ItemRow {
  std::optional<std::string> text;
  ChunkTextFields fields;
  Amounts base;
  std::int64_t remaining_locked = 0;
};

ItemRow item_row(db::Db& db, pqxx::work& tx, const std::string& item_id, const std::string& order_id) {
  const auto rows = db.exec(tx, kItemRow, item_id, order_id);
  if (rows.empty()) throw Refused{ApiError::not_found()};
  const auto& r = rows[0];
  ItemRow row;
  if (!r[0].is_null()) row.text = r[0].as<std::string>();
  row.fields.original_text_length = r[1].as<std::size_t>();
  row.fields.free_length = r[2].as<std::size_t>();
  row.fields.max_billable_length = r[3].as<std::size_t>();
  row.fields.max_raw_length = r[4].as<std::size_t>();
  row.fields.capacity_unit = capacity_unit_from_string(r[5].as<std::string>()).value_or(CapacityUnit::chars);
  row.base = {.quota_tokens = r[6].as<std::int64_t>(), .minor = r[7].as<std::int64_t>()};
  row.remaining_locked = r[8].as<std::int64_t>();
  return row;
}

// What retry and regenerate share: the order locked, the item's refusal rule applied, and the
// replacement text (the request's, or without one the item's current text) cleaned and measured.
struct Replacement {
  Locked locked;
  std::size_t item = 0;  // index into locked.order.items
  ItemRow row;
  std::string cleaned;
  ChunkTextFields fields;
  const Item& record() const { return locked.order.items[item]; }
};

using RefusalRule = std::optional<Reason> (*)(const Order&, const Position&, const Item&);

Replacement prepare_replacement(db::Db& db, pqxx::work& tx, UserId user, const std::string& oid, const std::string& iid,
                                const std::optional<std::string>& text, RefusalRule rule) {
  Replacement r{.locked = lock_own_order(db, tx, user, oid)};
  const Item& item = find_item(r.locked.order, iid);
  r.item = static_cast<std::size_t>(&item - r.locked.order.items.data());
  if (auto refusal = rule(r.locked.order, position_of(r.locked.order.items, item.chunk_index), item)) refuse(*refusal);
  r.row = item_row(db, tx, iid, oid);
  if (r.locked.maintenance) throw Refused{ApiError::refusal(503, Reason::service_maintenance)};
  if (!text && !r.row.text) refuse(Reason::input_expired);
  r.cleaned = std::string(trim_spaces(strip_brackets(text ? *text : *r.row.text)));
  r.fields = revise_text_fields(r.row.fields, r.cleaned);
  return r;
}

// Quota first, then money, at the order's price; locked on the new record.
Amounts pay(db::Db& db, pqxx::work& tx, const Locked& locked, std::string_view item_id, std::int64_t tokens) {
  if (tokens <= 0) return {};
  const auto q = db.exec(tx, kQuota, locked.accounts.user.value, locked.accounts.tokens.value);
  const std::int64_t quota = q.empty() ? 0 : q[0][0].as<std::int64_t>();
  const std::int64_t from_quota = std::min(quota, tokens);
  const Amounts amounts{.quota_tokens = from_quota,
                        .minor = money_for_tokens(tokens - from_quota, locked.price_per_1k_minor)};
  try {
    lock_item(db, tx, locked.accounts, item_id, amounts);
  } catch (const billing::InsufficientBalance&) {
    throw Refused{ApiError::refusal(402, Reason::insufficient_balance)};
  }
  return amounts;
}

std::string render_item(db::Db& db, pqxx::work& tx, const std::string& order_id, const std::string& item_id,
                        const TimeZone& tz) {
  auto order = load_order(db, tx, order_id, true);
  return item_json(find_item(*order, item_id), tz);
}

// New records are pending; the order is named too, with the items before it.
std::vector<OrderChange> queued(const std::vector<std::string>& item_ids, const std::string& order_id) {
  std::vector<OrderChange> out;
  out.reserve(item_ids.size() + 1);
  for (const auto& id : item_ids) out.push_back({.subject = OrderChange::Subject::item, .id = id, .order_id = order_id});
  out.push_back({.subject = OrderChange::Subject::order, .id = order_id, .order_id = order_id});
  return out;
}

}  // namespace

Result<OperationReply> retry_item(db::Db& db, cache::Redis& redis, const Caller& caller, std::string_view order_id,
                                  std::string_view item_id, const json& body,
                                  const std::optional<IdempotencyKey>& idempotency) {
  auto text = read_text(body, kMaxItemTextChars);
  if (!text) return text.error();
  if (!is_uuid(order_id) || !is_uuid(item_id)) return ApiError::not_found();
  const std::string oid(order_id), iid(item_id);
  const UserId user = caller.principal.user_id;
  try {
    KeyTokens key_tokens(redis, caller);
    auto reply = db::transact(db, [&](pqxx::work& tx) -> OperationReply {
      if (idempotency) {
        auto claimed = claim_idempotency_key(db, tx, user, "items.retry:" + iid, *idempotency);
        if (!claimed) throw Refused{claimed.error()};
        if (*claimed) return **claimed;
      }
      const Replacement r = prepare_replacement(db, tx, user, oid, iid, *text, &retry_refusal);
      const Locked& locked = r.locked;
      const Item& item = r.record();
      const ItemRow& row = r.row;
      const std::string& cleaned = r.cleaned;
      const auto& fields = r.fields;
      if (!within_limits(fields)) refuse(Reason::text_over_capacity);
      check_settings_and_text(db, tx, caller, oid, cleaned);
      // A failed attempt keeps only its base lock (its surcharge went back when it failed).
      const std::int64_t base_tokens = row.remaining_locked;
      if (base_tokens <= 0) throw Refused{ApiError::refusal(402, Reason::insufficient_funds)};

      const std::int64_t surcharge =
          std::max<std::int64_t>(0, static_cast<std::int64_t>(fields.billable_length) - static_cast<std::int64_t>(row.fields.free_length));
      key_tokens.take(db, tx, surcharge);
      const std::string new_id = random_uuid();
      const Amounts paid = pay(db, tx, locked, new_id, surcharge);
      db.exec(tx, kInsertRecord, new_id, std::string("retry"), item.attempt_number + 1, cleaned,
              static_cast<std::int64_t>(fields.length), static_cast<std::int64_t>(fields.billable_length),
              static_cast<std::int64_t>(fields.raw_length), base_tokens + surcharge, row.base.quota_tokens,
              row.base.minor, surcharge, paid.quota_tokens, paid.minor, iid);
      db.exec(tx, kHandOver, iid);
      OperationReply answer{.status = 201,
                            .message = "orders.item_queued",
                            .data_json = render_item(db, tx, oid, new_id, caller.tz),
                            .changes = queued({new_id}, oid)};
      if (idempotency) remember_reply(db, tx, user, *idempotency, answer);
      return answer;
    });
    if (!reply.replayed) key_tokens.keep();
    return reply;
  } catch (const Refused& r) {
    return r.error;
  }
}

Result<OperationReply> retry_failed_items(db::Db& db, const Caller& caller, std::string_view order_id) {
  if (!is_uuid(order_id)) return ApiError::not_found();
  const std::string oid(order_id);
  try {
    return db::transact(db, [&](pqxx::work& tx) -> OperationReply {
      const Locked locked = lock_own_order(db, tx, caller.principal.user_id, oid);
      const Order& order = locked.order;
      if (is_single_shot(order.task_type)) refuse(Reason::generative_not_supported);
      if (order.status != OrderStatus::partially_completed) refuse(Reason::invalid_order_status);
      if (order.stitching) refuse(Reason::stitch_in_progress);
      if (locked.maintenance) throw Refused{ApiError::refusal(503, Reason::service_maintenance)};
      // Every position whose last attempt failed (policy_flagged ones need a new text) and that
      // may still be retried, with its previous text, for free.
      std::vector<std::string> created;
      for (const auto& item : order.items) {
        if (item.status != ItemStatus::failed) continue;
        const Position position = position_of(order.items, item.chunk_index);
        if (position.last_attempt != &item || retry_refusal(order, position, item)) continue;
        ItemRow row = item_row(db, tx, item.id, oid);
        const std::int64_t base_tokens = row.remaining_locked;
        if (!row.text || base_tokens <= 0) continue;
        const auto fields = revise_text_fields(row.fields, *row.text);
        const std::string new_id = random_uuid();
        db.exec(tx, kInsertRecord, new_id, std::string("retry"), item.attempt_number + 1, *row.text,
                static_cast<std::int64_t>(fields.length), static_cast<std::int64_t>(fields.billable_length),
                static_cast<std::int64_t>(fields.raw_length), base_tokens, row.base.quota_tokens, row.base.minor,
                std::int64_t{0}, std::int64_t{0}, std::int64_t{0}, item.id);
        db.exec(tx, kHandOver, item.id);
        created.push_back(new_id);
      }
      if (created.empty()) refuse(Reason::nothing_to_retry);
      auto after = load_order(db, tx, oid, true);
      std::vector<Item> items;
      for (const auto& id : created) items.push_back(find_item(*after, id));
      return OperationReply{.status = 201,
                            .message = "orders.items_queued",
                            .data_json = "{\"order_id\":\"" + oid + "\",\"queued\":" + std::to_string(created.size()) +
                                         ",\"items\":" + items_json(items, caller.tz) + "}",
                            .changes = queued(created, oid)};
    });
  } catch (const Refused& r) {
    return r.error;
  }
}

Result<OperationReply> regenerate_item(db::Db& db, cache::Redis& redis, const Caller& caller, std::string_view order_id,
                                       std::string_view item_id, const json& body) {
  auto text = read_text(body, kMaxItemTextChars);
  if (!text) return text.error();
  if (!is_uuid(order_id) || !is_uuid(item_id)) return ApiError::not_found();
  const std::string oid(order_id), iid(item_id);
  try {
    KeyTokens key_tokens(redis, caller);
    auto reply = db::transact(db, [&](pqxx::work& tx) -> OperationReply {
      const Replacement r =
          prepare_replacement(db, tx, caller.principal.user_id, oid, iid, *text, &regenerate_refusal);
      const Locked& locked = r.locked;
      const Item& item = r.record();
      const ItemRow& row = r.row;
      const std::string& cleaned = r.cleaned;
      const auto& fields = r.fields;
      // A regeneration text is bounded by the chunk's original length (spec 2.4) and its capacity.
      if (fields.length > row.fields.original_text_length || fields.raw_length > fields.max_raw_length) {
        refuse(Reason::text_over_capacity);
      }
      check_settings_and_text(db, tx, caller, oid, cleaned);
      const auto tokens = static_cast<std::int64_t>(fields.billable_length);
      key_tokens.take(db, tx, tokens);
      const std::string new_id = random_uuid();
      const Amounts paid = pay(db, tx, locked, new_id, tokens);
      const auto regenerations =
          db.exec(tx, kRegenerations, oid, item.chunk_index)[0][0].as<std::int64_t>();
      db.exec(tx, kInsertRecord, new_id, std::string("regeneration"), static_cast<int>(regenerations + 1), cleaned,
              static_cast<std::int64_t>(fields.length), static_cast<std::int64_t>(fields.billable_length),
              static_cast<std::int64_t>(fields.raw_length), tokens, std::int64_t{0}, std::int64_t{0}, tokens,
              paid.quota_tokens, paid.minor, iid);
      return OperationReply{.status = 201,
                            .message = "orders.item_queued",
                            .data_json = render_item(db, tx, oid, new_id, caller.tz),
                            .changes = queued({new_id}, oid)};
    });
    key_tokens.keep();
    return reply;
  } catch (const Refused& r) {
    return r.error;
  }
}

}  // namespace mediagen::orders
