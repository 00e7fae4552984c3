// Names of order and item values (migrations/0003), and where an order's files live.
#include "mediagen/orders/order.hpp"

#include <algorithm>
#include <array>

namespace mediagen::orders {
namespace {

// In declaration order of the enum.
constexpr std::array<std::string_view, 3> kItemTypes{"chunk", "retry", "regeneration"};

}  // namespace

std::string_view to_string(ItemType type) noexcept { return kItemTypes[static_cast<std::size_t>(type)]; }

std::optional<ItemType> item_type_from_string(std::string_view name) noexcept {
  return detail::enum_from_name<ItemType>(kItemTypes, name);
}

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

std::string result_audio_key(std::string_view order_id, std::string_view ext) {
  return order_storage_prefix(order_id) + "result." + std::string(ext);
}

std::string item_format_key(std::string_view mp3_key, std::string_view format, std::string_view ext) {
  if (mp3_key.ends_with(".mp3")) mp3_key.remove_suffix(4);
  return std::string(mp3_key) + "." + std::string(format) + "." + std::string(ext);
}

std::string item_mp3_key(std::string_view format_key, std::string_view format, std::string_view ext) {
  const std::string suffix = "." + std::string(format) + "." + std::string(ext);
  if (format_key.ends_with(suffix)) format_key.remove_suffix(suffix.size());
  return std::string(format_key) + ".mp3";
}

std::string result_subtitles_key(std::string_view order_id, std::string_view ext) {
  if (ext.starts_with('.')) ext.remove_prefix(1);  // "srt" and ".srt" name the same file
  std::string out = order_storage_prefix(order_id);
  out += "result.";
  out += ext;
  return out;
}

}  // namespace mediagen::orders
