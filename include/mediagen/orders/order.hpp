#pragma once
// Orders and their items as stored (migrations/0003): the values every part of the order
// machinery shares. The statuses and their moves are in order_status.hpp.
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "mediagen/core/clock.hpp"
#include "mediagen/core/ids.hpp"
#include "mediagen/orders/order_status.hpp"

namespace mediagen::orders {

enum class ItemType { chunk, retry, regeneration };
std::string_view to_string(ItemType type) noexcept;
std::optional<ItemType> item_type_from_string(std::string_view name) noexcept;

// The nine values of the task_type enum (spec 1); only tts, sfx, music and voice_search can be
// ordered, the rest are filters.
bool is_task_type(std::string_view name) noexcept;
bool is_orderable_task_type(std::string_view name) noexcept;
// sfx and music are single-shot: never retried or regenerated per chunk, and their result lists
// each chunk's file rather than one joined track.
bool is_single_shot(std::string_view task_type) noexcept;

// Attempts per chunk position (spec 8.2): the original plus at most four retries.
inline constexpr int kMaxAttempts = 5;
// Item retry and regenerate text (spec 4.2, 8.2).
inline constexpr std::size_t kMaxItemTextChars = 50000;

// Storage keys of an order's files.
std::string order_storage_prefix(std::string_view order_id);                       // "orders/<id>/"
// ".../items/<item>.<claim>.mp3": one file per claim, so a worker that lost its lease and
// finishes late never overwrites the file of the attempt that completed.
std::string item_audio_key(std::string_view order_id, std::string_view item_id, std::string_view claim);
std::string result_audio_key(std::string_view order_id);                          // ".../result.mp3"
std::string result_subtitles_key(std::string_view order_id, std::string_view ext);  // ".../result.srt|vtt"

struct Item {
  std::string id;
  std::string order_id;
  ItemType type = ItemType::chunk;
  int chunk_index = 0;
  std::optional<int> paragraph_index;
  std::optional<std::string> parent_item_id;
  int attempt_number = 1;
  ItemStatus status = ItemStatus::pending;
  std::optional<std::string> failure_reason;
  bool text_removed = false;
  int original_text_length = 0;
  int current_text_length = 0;
  std::int64_t price_units = 0;      // tokens
  std::int64_t consumed_units = 0;   // tokens
  std::int64_t remaining_locked = 0; // tokens
  std::optional<std::string> result_path;
  std::optional<std::int64_t> result_size;
  std::optional<std::int64_t> duration_ms;
  // Computed from the same rules the retry and regenerate operations enforce.
  bool can_retry = false;
  bool can_regenerate = false;
  TimePoint created_at;
  TimePoint updated_at;
};

struct Order {
  std::string id;
  UserId user_id;
  std::string task_type;
  OrderStatus status = OrderStatus::created;
  std::string service_key;
  std::optional<std::string> template_id;
  std::string config_override_json = "{}";
  std::string generation_mode = "ordinary";
  std::int64_t price_units = 0;        // money, minor units of the platform currency
  std::int64_t tokens_from_quota = 0;
  std::int64_t tokens_from_payg = 0;
  std::vector<std::string> result_files;
  std::vector<std::string> result_service_files;
  std::optional<std::int64_t> result_duration_ms;
  // A result that is data rather than files (voice_search: {"voices", "truncated",
  // "analysed_seconds"}), a JSON object whose members join result's.
  std::optional<std::string> result_data_json;
  std::optional<std::string> retry_of;
  std::optional<OrderFailure> failure_reason;  // why it failed, beyond "no position completed"
  bool stitching = false;
  bool files_removed = false;
  TimePoint created_at;
  TimePoint updated_at;
  std::vector<Item> items;  // filled on GET /orders/{order} only
  // GET /orders/{order} of an order with a waiting chunk: 1 when its first waiting chunk is next
  // for the workers, n when n - 1 other orders have chunks waiting before it.
  std::optional<std::int64_t> queue_position;
};

}  // namespace mediagen::orders
