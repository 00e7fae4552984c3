#include "mediagen/orders/reads.hpp"


#include <nlohmann/json.hpp>

#include "mediagen/core/json_text.hpp"

namespace mediagen::orders {
namespace {

void optional_text(JsonWriter& out, std::string_view key, const std::optional<std::string>& value) {
  out.key(key);
  if (value) {
    out.value(std::string_view(*value));
  } else {
    out.null();
  }
}

std::int64_t int64(std::size_t v) { return static_cast<std::int64_t>(v); }

}  // namespace

void write_order(JsonWriter& out, const Order& order, const TimeZone& tz, WithItems with_items) {
  out.begin_object();
  out.field("id", std::string_view(order.id));
  out.field("status", to_string(order.status));
  out.field("task_type", task_type_name(order.task_type));
  optional_text(out, "template_id", order.template_id);
  out.field("service_key", std::string_view(order.service_key));
  out.field("generation_mode", std::string_view(order.generation_mode));
  // Stored as a jsonb object (a CHECK guarantees it), so its text is JSON as it is.
  out.key("config_override").raw(order.config_override_json.empty() ? "{}" : order.config_override_json);
  out.field("price_units", order.price_units);
  out.field("tokens_from_quota", order.tokens_from_quota);
  out.field("tokens_from_payg", order.tokens_from_payg);
  out.key("result");
  write_order_result(out, order);
  optional_text(out, "retry_of", order.retry_of);
  write_order_failure(out, order);
  out.field("created_at", std::string_view(tz.format(order.created_at)));
  out.field("updated_at", std::string_view(tz.format(order.updated_at)));
  if (with_items == WithItems::yes) {
    out.field("queue_position", order.queue_position);
    out.key("items").begin_array();
    for (const auto& item : order.items) write_item(out, item, tz);
    out.end_array();
  }
  out.end_object();
}

void write_order_result(JsonWriter& out, const Order& order) {
  if (order.result_files.empty() && order.result_service_files.empty() && !order.result_data_json) {
    out.null();
  } else {
    out.begin_object();
    out.field("files", order.result_files);
    out.field("service_files", order.result_service_files);
    out.field("duration_ms", order.result_duration_ms);
    if (order.result_data_json) {
      // Stored as a jsonb object (a CHECK guarantees it); its members follow the files.
      const auto data = nlohmann::json::parse(*order.result_data_json, nullptr, false);
      if (data.is_object()) {
        for (const auto& [key, value] : data.items()) out.key(key).raw(to_json_text(value));
      }
    }
    out.end_object();
  }
}

void write_order_failure(JsonWriter& out, const Order& order) {
  out.key("failure_reason");
  if (order.failure_reason) {
    out.value(to_string(*order.failure_reason));
  } else {
    out.null();
  }
}

void write_item(JsonWriter& out, const Item& item, const TimeZone& tz) {
  out.begin_object();
  out.field("id", std::string_view(item.id));
  out.field("order_id", std::string_view(item.order_id));
  out.field("item_type", to_string(item.type));
  out.field("chunk_index", std::int64_t{item.chunk_index});
  // Spec 2.4: the paragraph link belongs to originals only, never to retries or regenerations.
  out.key("paragraph_index");
  if (item.type == ItemType::chunk && item.paragraph_index) {
    out.value(std::int64_t{*item.paragraph_index});
  } else {
    out.null();
  }
  optional_text(out, "parent_item_id", item.parent_item_id);
  out.field("original_text_length", std::int64_t{item.original_text_length});
  out.field("current_text_length", std::int64_t{item.current_text_length});
  out.field("price_units", item.price_units);
  out.field("consumed_units", item.consumed_units);
  out.field("remaining_locked", item.remaining_locked);
  out.field("status", to_string(item.status));
  out.key("result_file");
  if (item.result_path) {
    out.begin_object();
    out.field("path", std::string_view(*item.result_path));
    out.field("size", item.result_size);
    out.end_object();
  } else {
    out.null();
  }
  out.field("duration_ms", item.duration_ms);
  out.field("attempt_number", std::int64_t{item.attempt_number});
  out.field("can_retry", item.can_retry);
  out.field("can_regenerate", item.can_regenerate);
  const bool failed = item.status == ItemStatus::failed || item.status == ItemStatus::policy_flagged;
  optional_text(out, "failure_reason", failed ? item.failure_reason : std::nullopt);
  out.field("created_at", std::string_view(tz.format(item.created_at)));
  out.field("updated_at", std::string_view(tz.format(item.updated_at)));
  out.end_object();
}

std::string order_json(const Order& order, const TimeZone& tz, WithItems with_items) {
  JsonWriter out(with_items == WithItems::yes ? 512 + 640 * order.items.size() : 640);
  write_order(out, order, tz, with_items);
  return out.take();
}

std::string item_json(const Item& item, const TimeZone& tz) {
  JsonWriter out(640);
  write_item(out, item, tz);
  return out.take();
}

std::string items_json(const std::vector<Item>& items, const TimeZone& tz) {
  JsonWriter out(16 + 640 * items.size());
  out.begin_array();
  for (const auto& item : items) write_item(out, item, tz);
  out.end_array();
  return out.take();
}

std::string order_page_json(const OrderPage& page, const TimeZone& tz) {
  JsonWriter out(128 + 640 * page.items.size());
  out.begin_object();
  out.key("items").begin_array();
  for (const auto& order : page.items) write_order(out, order, tz, WithItems::no);
  out.end_array();
  out.field("current_page", page.page);
  out.field("last_page", page.last_page());
  out.field("per_page", page.per_page);
  out.field("total", page.total);
  out.end_object();
  return out.take();
}

std::string item_text_json(const ItemText& text) {
  const auto& f = text.fields;
  JsonWriter out(128 + text.text.size());
  out.begin_object();
  out.field("text", std::string_view(text.text));
  out.field("length", int64(f.length));
  out.field("original_text_length", int64(f.original_text_length));
  out.field("free_length", int64(f.free_length));
  out.field("billable_length", int64(f.billable_length));
  out.field("max_billable_length", int64(f.max_billable_length));
  out.field("max_raw_length", int64(f.max_raw_length));
  out.field("surcharge_applies", f.surcharge_applies);
  out.field("capacity_unit", to_string(f.capacity_unit));
  out.field("raw_length", int64(f.raw_length));
  out.end_object();
  return out.take();
}

}  // namespace mediagen::orders
