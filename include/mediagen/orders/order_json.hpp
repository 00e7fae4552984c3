#pragma once
// The Order and OrderItem objects of the API (spec 2.3, 2.4), written with JsonWriter: these
// are rendered on every poll, so no JSON tree is built. Times are ISO 8601 with the offset of
// the request's time zone.
//
// Order: id, status, task_type, template_id, service_key, generation_mode, config_override,
// price_units (money, minor units), tokens_from_quota, tokens_from_payg, result (null until the
// order has files; then {files, service_files, duration_ms}), retry_of, created_at, updated_at,
// and items when asked for.
// Item: id, order_id, item_type, chunk_index, paragraph_index (originals of a paragraph-mode
// order only), parent_item_id, original_text_length, current_text_length, price_units,
// consumed_units, remaining_locked (tokens), status, result_file (null or {path, size}),
// duration_ms, attempt_number, can_retry, can_regenerate, failure_reason (failed and
// policy_flagged only), created_at, updated_at.
#include <string>
#include <vector>

#include "mediagen/core/json_writer.hpp"
#include "mediagen/core/time_zone.hpp"
#include "mediagen/orders/order.hpp"

namespace mediagen::orders {

struct OrderPage;
struct ItemText;

enum class WithItems : bool { no, yes };

void write_order(JsonWriter& out, const Order& order, const TimeZone& tz, WithItems with_items);
void write_item(JsonWriter& out, const Item& item, const TimeZone& tz);
// The value of an order's `result` key: null until it has files (the realtime order.updated
// event carries the same value).
void write_order_result(JsonWriter& out, const Order& order);
// `"failure_reason": "stitch_failed"` or `null` (an extension of the spec's Order fields).
void write_order_failure(JsonWriter& out, const Order& order);

std::string order_json(const Order& order, const TimeZone& tz, WithItems with_items = WithItems::no);
std::string item_json(const Item& item, const TimeZone& tz);
// A flat array of items (GET /orders/{order}/items).
std::string items_json(const std::vector<Item>& items, const TimeZone& tz);
// {items, current_page, last_page, per_page, total} (GET /orders).
std::string order_page_json(const OrderPage& page, const TimeZone& tz);
// The data of GET /orders/{order}/items/{item}/text.
std::string item_text_json(const ItemText& text);

}  // namespace mediagen::orders
