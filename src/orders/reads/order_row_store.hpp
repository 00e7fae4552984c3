#pragma once
// The select lists of an order row and an item row, and their decoding: shared by the reads
// (order_read_store.cpp) and the realtime events (order_event_store.cpp), so both see one shape.
#include <pqxx/pqxx>

#include "mediagen/orders/order.hpp"

namespace mediagen::orders {

#define MG_MICROS(column) "(extract(epoch from " column ") * 1000000)::bigint"

// A stitch is due or running while stitch_until is set (the stitcher's lease), and a crashed
// stitcher's order still waits for one: both block retries like a running stitch.
#define MG_ORDER_COLUMNS                                                                              \
  "id::text, user_id, task_type, status, service_key, template_id::text, config_override::text,"      \
  " generation_mode, price_units, tokens_from_quota, tokens_from_payg, result_files::text,"           \
  " result_service_files::text, result_duration_ms, retry_of::text,"                                 \
  " (stitch_token IS NOT NULL OR stitch_until IS NOT NULL), files_removed_at IS NOT NULL, "           \
  MG_MICROS("created_at") ", " MG_MICROS("updated_at") ", failure_reason, result_data::text"

#define MG_ITEM_COLUMNS                                                                                  \
  "id::text, order_id::text, item_type, chunk_index, paragraph_index, parent_item_id::text,"            \
  " attempt_number, status, failure_reason,"                                                             \
  " NOT EXISTS (SELECT 1 FROM order_item_texts x WHERE x.item_id = order_items.id),"                    \
  " original_text_length, current_text_length,"                                                        \
  " price_units, consumed_units, remaining_locked, result_path, result_size, duration_ms, "             \
  MG_MICROS("created_at") ", " MG_MICROS("updated_at")

// kOwnOrderWithItems (order_read_store.cpp) orders by positions that count these.
inline constexpr pqxx::row::size_type kOrderColumns = 21;
inline constexpr pqxx::row::size_type kItemColumns = 20;

// `r` holds exactly the columns above, in their order: a libpqxx row, or a db::PgRow of a read
// from the I/O threads (both are instantiated in order_read_store.cpp).
template <class Row>
Order order_from_row(const Row& r);
template <class Row>
Item item_from_row(const Row& r);

}  // namespace mediagen::orders
