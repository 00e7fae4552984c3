// Item retry, bulk retry and regenerate (spec 3.2, 4.2, 7.1, 8.2): the rules; their SQL is in
// item_store.cpp. Each is one transaction:
// the new record, the lock it moves or takes, and (item retry) the Idempotency-Key answer.
//
// Money. A retry takes over its parent's base lock (free within free_length); text beyond it,
// up to max_billable_length, is a surcharge locked quota first, then money, and returned if
// the retry fails. A regeneration is paid in full the same way; its whole lock is kept in the
// surcharge columns so that a failure returns all of it and a success charges all of it. What
// is paid obeys the live plan as a new order does (pay).
#include <chrono>

#include <nlohmann/json.hpp>

#include "mediagen/orders/create.hpp"
#include "mediagen/orders/items.hpp"
#include "mediagen/orders/reads.hpp"
#include "item_store.hpp"
#include "mediagen/billing/ledger.hpp"
#include "mediagen/core/uuid.hpp"
#include "mediagen/orders/order.hpp"
#include "mediagen/orders/text.hpp"
#include "mediagen/templates/templates.hpp"
#include "mediagen/db/settled.hpp"
#include "mediagen/orders/limits.hpp"
#include "mediagen/orders/actions.hpp"
#include "mediagen/orders/request.hpp"

namespace mediagen::orders {
namespace {

using nlohmann::json;

struct Locked {
  Order order;
  OrderAccounts accounts;
  std::int64_t price_per_1k_minor = 0;
  bool maintenance = false;
};

// Locks the order's live items, then the order; 404 unless it is the caller's.
Result<Locked> lock_own_order(db::Db& db, db::Tx& tx, UserId user, const OrderId& order_id) {
  lock_live_items(db, tx, order_id.str());
  const auto lock = lock_order_for_item_action(db, tx, order_id.str());
  if (!lock || lock->owner != user) return ApiError::not_found();
  auto order = load_order(db, tx, order_id, true);
  if (!order) return ApiError::not_found();
  return Locked{std::move(*order), {user, order_id.str(), lock->money, lock->tokens}, lock->price_per_1k_minor,
                lock->maintenance};
}

// The item of the order with this id; nullptr when there is none.
const Item* find_item(const Order& order, std::string_view item_id) {
  for (const auto& item : order.items) {
    if (item.id == item_id) return &item;
  }
  return nullptr;
}

// The order's settings (template snapshot) must still pass the service's current schema
// (spec 7.1: 422 retry_config_outdated on item retry), and a text the content policy refuses
// is refused now rather than charged and flagged again.
std::optional<ApiError> check_settings_and_text(db::Db& db, db::Tx& tx, const Caller& caller,
                                                const std::string& order_id, std::string_view text) {
  const auto snapshot = settings_snapshot(db, tx, order_id);
  if (!snapshot) return ApiError::not_found();
  if (snapshot->task_type == TaskType::tts) {
    auto setup = templates::validate_stored_in(db, tx, snapshot->service_key, snapshot->config_snapshot,
                                                 caller.principal.user_id);
    if (!setup) return ApiError::refused(Reason::retry_config_outdated);
  }
  if (caller.blocked && caller.blocked(text)) return ApiError::refused(Reason::content_blocked);
  return std::nullopt;
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

Result<Replacement> prepare_replacement(db::Db& db, db::Tx& tx, UserId user, const OrderId& order_id,
                                        const ItemId& item_id, const std::optional<std::string>& text,
                                        RefusalRule rule) {
  const std::string& oid = order_id.str();
  const std::string& iid = item_id.str();
  auto locked = lock_own_order(db, tx, user, order_id);
  if (!locked) return locked.error();
  Replacement r{.locked = std::move(*locked)};
  const Item* item = find_item(r.locked.order, iid);
  if (!item) return ApiError::not_found();
  r.item = static_cast<std::size_t>(item - r.locked.order.items.data());
  if (auto refusal = rule(r.locked.order, position_of(r.locked.order.items, item->chunk_index), *item)) {
    return ApiError::refused(*refusal);
  }
  auto row = read_item_row(db, tx, iid, oid);
  if (!row) return ApiError::not_found();
  r.row = std::move(*row);
  if (r.locked.maintenance) return ApiError::refused(Reason::service_maintenance);
  if (!text && !r.row.text) return ApiError::refused(Reason::input_expired);
  r.cleaned = std::string(trim_spaces(strip_brackets(text ? *text : *r.row.text)));
  r.fields = revise_text_fields(r.row.fields, r.cleaned);
  return r;
}

// Quota first, then money, at the order's price; locked on the new record. The plan's rules hold
// as for a new order: its ceiling on the service (429 limit_exceeded), its quota only for the
// services it entitles, and money only where the service is open to pay-as-you-go (402
// insufficient_allowance).
Result<Amounts> pay(db::Db& db, db::Tx& tx, const Locked& locked, std::string_view item_id, std::int64_t tokens) {
  if (tokens <= 0) return Amounts{};
  const UserId user = locked.accounts.user;
  const std::string& service = locked.order.service_key;
  const CreateContext plan = read_create_context(db, tx, user, service);
  if (exceeds_service_ceiling(db, tx, user, plan, service, tokens)) return ApiError::refused(Reason::limit_exceeded);
  const std::int64_t quota = plan.entitled ? locked_quota(db, tx, user, locked.accounts.tokens) : 0;
  const std::int64_t from_quota = std::min(quota, tokens);
  if (from_quota < tokens && !plan.payg_enabled) return ApiError::refused(Reason::insufficient_allowance);
  const Amounts amounts{.quota_tokens = from_quota,
                        .minor = money_for_tokens(tokens - from_quota, locked.price_per_1k_minor)};
  try {
    lock_item(db, tx, locked.accounts, item_id, amounts);
  } catch (const billing::InsufficientBalance&) {
    return ApiError::refused(Reason::insufficient_balance);
  }
  return amounts;
}

// Records this transaction inserted, as the order lists them.
std::vector<Item> inserted_items(db::Db& db, db::Tx& tx, const OrderId& order_id, const std::vector<std::string>& ids) {
  auto order = load_order(db, tx, order_id, true);
  std::vector<Item> items;
  items.reserve(ids.size());
  for (const auto& id : ids) items.push_back(*find_item(*order, id));
  return items;
}

// New records are pending; the order is named too, with the items before it.
std::vector<OrderChange> queued(const std::vector<std::string>& item_ids, const std::string& order_id) {
  std::vector<OrderChange> out;
  out.reserve(item_ids.size() + 1);
  for (const auto& id : item_ids) out.push_back({.subject = OrderChange::Subject::item, .id = id, .order_id = order_id});
  out.push_back({.subject = OrderChange::Subject::order, .id = order_id, .order_id = order_id});
  return out;
}

// The shared end of item retry and regenerate, in their transaction: `record.surcharge_tokens`
// taken from the key's token windows and paid, the new record inserted under a fresh id; the
// answer names it.
Result<ItemsQueued> queue_replacement(db::Db& db, db::Tx& tx, const Caller& caller, const OrderId& order_id,
                                      const Replacement& r, NewRecord record) {
  if (auto refusal = KeyTokens(caller).take(db, tx, record.surcharge_tokens)) return *refusal;
  record.id = time_ordered_uuid();
  const auto paid = pay(db, tx, r.locked, record.id, record.surcharge_tokens);
  if (!paid) return paid.error();
  record.surcharge = *paid;
  record.text = r.cleaned;
  record.fields = r.fields;
  insert_record(db, tx, record);
  return ItemsQueued{.order_id = order_id,
                     .items = inserted_items(db, tx, order_id, {record.id}),
                     .changes = queued({record.id}, order_id.str())};
}

}  // namespace

Result<ItemsQueued> retry_item(db::Db& db, const Caller& caller, const OrderId& order_id, const ItemId& item_id,
                               const std::optional<std::string>& text, ItemsKeeper* kept) {
  const UserId user = caller.principal.user_id;
  return db::transact_settled(db, [&](db::Tx& tx) -> Result<ItemsQueued> {
    if (kept) {
      auto claimed = kept->claim(db, tx, "items.retry:" + item_id.str());
      if (!claimed) return claimed.error();
      if (*claimed == KeyUse::repeated) return ItemsQueued{.order_id = order_id, .replayed = true};
    }
    auto prepared = prepare_replacement(db, tx, user, order_id, item_id, text, &retry_refusal);
    if (!prepared) return prepared.error();
    const Replacement& r = *prepared;
    if (!within_limits(r.fields)) return ApiError::refused(Reason::text_over_capacity);
    if (auto refusal = check_settings_and_text(db, tx, caller, order_id.str(), r.cleaned)) return *refusal;
    // A failed attempt keeps only its base lock (its surcharge went back when it failed).
    const std::int64_t base_tokens = r.row.remaining_locked;
    if (base_tokens <= 0) return ApiError::refused(Reason::insufficient_funds);
    const std::int64_t surcharge = std::max<std::int64_t>(
        0, static_cast<std::int64_t>(r.fields.billable_length) - static_cast<std::int64_t>(r.row.fields.free_length));
    auto answer = queue_replacement(db, tx, caller, order_id, r,
                                    {.type = to_string(ItemType::retry),
                                     .attempt_number = r.record().attempt_number + 1,
                                     .price_units = base_tokens + surcharge,
                                     .base = r.row.base,
                                     .surcharge_tokens = surcharge,
                                     .parent_id = item_id.str()});
    if (!answer) return answer;
    hand_over_lock(db, tx, item_id.str());
    if (kept) kept->keep(db, tx, *answer);
    return answer;
  });
}

Result<ItemsQueued> retry_failed_items(db::Db& db, const Caller& caller, const OrderId& order_id) {
  const std::string& oid = order_id.str();
  return db::transact_settled(db, [&](db::Tx& tx) -> Result<ItemsQueued> {
    const auto locked = lock_own_order(db, tx, caller.principal.user_id, order_id);
    if (!locked) return locked.error();
    const Order& order = locked->order;
    if (is_single_shot(order.task_type)) return ApiError::refused(Reason::generative_not_supported);
    if (order.status != OrderStatus::partially_completed) return ApiError::refused(Reason::invalid_order_status);
    if (order.stitching) return ApiError::refused(Reason::stitch_in_progress);
    if (locked->maintenance) return ApiError::refused(Reason::service_maintenance);
    // Every position whose last attempt failed (policy_flagged ones need a new text) and that
    // may still be retried, with its previous text, for free.
    std::vector<std::string> created;
    for (const auto& item : order.items) {
      if (item.status != ItemStatus::failed) continue;
      const Position position = position_of(order.items, item.chunk_index);
      if (position.last_attempt != &item || retry_refusal(order, position, item)) continue;
      auto found = read_item_row(db, tx, item.id, oid);
      if (!found) return ApiError::not_found();
      const ItemRow& row = *found;
      const std::int64_t base_tokens = row.remaining_locked;
      if (!row.text || base_tokens <= 0) continue;
      const auto fields = revise_text_fields(row.fields, *row.text);
      const std::string new_id = time_ordered_uuid();
      insert_record(db, tx,
                    {.id = new_id, .type = to_string(ItemType::retry), .attempt_number = item.attempt_number + 1,
                     .text = *row.text, .fields = fields, .price_units = base_tokens, .base = row.base,
                     .parent_id = item.id});
      hand_over_lock(db, tx, item.id);
      created.push_back(new_id);
    }
    if (created.empty()) return ApiError::refused(Reason::nothing_to_retry);
    return ItemsQueued{.order_id = order_id, .items = inserted_items(db, tx, order_id, created),
                       .changes = queued(created, oid)};
  });
}

Result<ItemsQueued> regenerate_item(db::Db& db, const Caller& caller, const OrderId& order_id, const ItemId& item_id,
                                    const std::optional<std::string>& text) {
  return db::transact_settled(db, [&](db::Tx& tx) -> Result<ItemsQueued> {
    auto prepared = prepare_replacement(db, tx, caller.principal.user_id, order_id, item_id, text, &regenerate_refusal);
    if (!prepared) return prepared.error();
    const Replacement& r = *prepared;
    // A regeneration text is bounded by the chunk's original length (spec 2.4) and its capacity.
    if (r.fields.length > r.row.fields.original_text_length || r.fields.raw_length > r.fields.max_raw_length) {
      return ApiError::refused(Reason::text_over_capacity);
    }
    if (auto refusal = check_settings_and_text(db, tx, caller, order_id.str(), r.cleaned)) return *refusal;
    const auto tokens = static_cast<std::int64_t>(r.fields.billable_length);
    const auto regenerations = count_regenerations(db, tx, order_id.str(), r.record().chunk_index);
    return queue_replacement(db, tx, caller, order_id, r,
                             {.type = to_string(ItemType::regeneration),
                              .attempt_number = static_cast<int>(regenerations + 1),
                              .price_units = tokens,
                              .surcharge_tokens = tokens,
                              .parent_id = item_id.str()});
  });
}

}  // namespace mediagen::orders
