// Names of order and item values (migrations/0003), and where an order's files live.
#include "mediagen/orders/order.hpp"

#include <algorithm>
#include <array>

namespace mediagen::orders {
namespace {

template <class Enum, std::size_t N>
std::optional<Enum> lookup(const std::array<std::string_view, N>& names, std::string_view name) noexcept {
  for (std::size_t i = 0; i < N; ++i) {
    if (names[i] == name) return static_cast<Enum>(i);
  }
  return std::nullopt;
}

// In declaration order of the enums.
constexpr std::array<std::string_view, 9> kOrderStatuses{
    "created", "pending",   "in_progress", "completed",          "result_delivered",
    "failed",  "compensated", "cancelled", "partially_completed"};
constexpr std::array<std::string_view, 5> kItemStatuses{"pending", "processing", "completed", "failed",
                                                        "policy_flagged"};
constexpr std::array<std::string_view, 3> kItemTypes{"chunk", "retry", "regeneration"};

constexpr std::array<std::string_view, 9> kTaskTypes{"tts",         "image", "txt2img", "remix",       "image_edit",
                                                     "voice_clone", "sfx",   "music",   "voice_search"};
constexpr std::array<std::string_view, 4> kOrderableTaskTypes{"tts", "sfx", "music", "voice_search"};

bool contains(auto const& names, std::string_view name) noexcept {
  return std::find(names.begin(), names.end(), name) != names.end();
}

}  // namespace

std::string_view to_string(OrderStatus status) noexcept { return kOrderStatuses[static_cast<std::size_t>(status)]; }

std::optional<OrderStatus> order_status_from_string(std::string_view name) noexcept {
  return lookup<OrderStatus>(kOrderStatuses, name);
}

bool is_terminal(OrderStatus status) noexcept {
  switch (status) {
    case OrderStatus::completed:
    case OrderStatus::result_delivered:
    case OrderStatus::failed:
    case OrderStatus::compensated:
    case OrderStatus::cancelled:
      return true;
    case OrderStatus::created:
    case OrderStatus::pending:
    case OrderStatus::in_progress:
    case OrderStatus::partially_completed:
      return false;
  }
  return false;
}

std::string_view to_string(ItemStatus status) noexcept { return kItemStatuses[static_cast<std::size_t>(status)]; }

std::optional<ItemStatus> item_status_from_string(std::string_view name) noexcept {
  return lookup<ItemStatus>(kItemStatuses, name);
}

std::string_view to_string(ItemType type) noexcept { return kItemTypes[static_cast<std::size_t>(type)]; }

std::optional<ItemType> item_type_from_string(std::string_view name) noexcept {
  return lookup<ItemType>(kItemTypes, name);
}

bool is_task_type(std::string_view name) noexcept { return contains(kTaskTypes, name); }

bool is_orderable_task_type(std::string_view name) noexcept { return contains(kOrderableTaskTypes, name); }

std::string order_storage_prefix(std::string_view order_id) {
  std::string out = "orders/";
  out += order_id;
  out += '/';
  return out;
}

std::string item_audio_key(std::string_view order_id, std::string_view item_id, std::string_view claim) {
  std::string out = order_storage_prefix(order_id);
  out += "items/";
  out += item_id;
  out += '.';
  out += claim;
  out += ".mp3";
  return out;
}

std::string result_audio_key(std::string_view order_id) { return order_storage_prefix(order_id) + "result.mp3"; }

std::string result_subtitles_key(std::string_view order_id, std::string_view ext) {
  if (ext.starts_with('.')) ext.remove_prefix(1);  // "srt" and ".srt" name the same file
  std::string out = order_storage_prefix(order_id);
  out += "result.";
  out += ext;
  return out;
}

}  // namespace mediagen::orders
