#pragma once
// The SQL of item retry, bulk retry and regenerate (item_service.cpp): the order's lock for an
// item action, the item's billing row, the new record and the lock it takes over. Every function
// runs inside the caller's transaction.
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "mediagen/core/ids.hpp"
#include "mediagen/db/db.hpp"
#include "mediagen/orders/order.hpp"
#include "mediagen/orders/text.hpp"

namespace mediagen::orders {

// The order row, locked (after its live items: the queue's lock order).
struct ItemActionLock {
  UserId owner;
  AssetId money;
  AssetId tokens;
  std::int64_t price_per_1k_minor = 0;
  bool maintenance = false;
};
std::optional<ItemActionLock> lock_order_for_item_action(db::Db& db, db::Tx& tx, const std::string& order_id);

// What an item's retry or regeneration is measured and paid against.
struct ItemRow {
  std::optional<std::string> text;  // nullopt once retention removed it
  ChunkTextFields fields;
  Amounts base;
  std::int64_t remaining_locked = 0;
};
std::optional<ItemRow> read_item_row(db::Db& db, db::Tx& tx, const std::string& item_id, const std::string& order_id);

// The user's subscription quota, its row locked; 0 without a live subscription.
std::int64_t locked_quota(db::Db& db, db::Tx& tx, UserId user, AssetId tokens);

// A retry or regeneration record of `parent`, pending.
struct NewRecord {
  std::string id;
  std::string_view type;  // "retry" or "regeneration"
  int attempt_number = 1;
  std::string text;
  ChunkTextFields fields;
  std::int64_t price_units = 0;  // tokens locked on the record (its remaining_locked)
  Amounts base;                  // the base lock it takes over (retries)
  std::int64_t surcharge_tokens = 0;
  Amounts surcharge;             // what was locked for the surcharge
  std::string parent_id;
};
void insert_record(db::Db& db, db::Tx& tx, const NewRecord& record);

// The parent's base lock now belongs to its retry.
void hand_over_lock(db::Db& db, db::Tx& tx, const std::string& item_id);

std::int64_t count_regenerations(db::Db& db, db::Tx& tx, const std::string& order_id, int chunk_index);

// The order's stored settings, to check against the service's current schema.
struct SettingsSnapshot {
  std::string service_key;
  std::string config_snapshot;
  TaskType task_type = TaskType::tts;
};
std::optional<SettingsSnapshot> settings_snapshot(db::Db& db, db::Tx& tx, const std::string& order_id);

}  // namespace mediagen::orders
