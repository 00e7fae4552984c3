// SQL of the order reads. Ids are passed as text and cast to uuid in SQL; callers check the
// format first (a malformed id never reaches PostgreSQL).
#include "mediagen/db/fields.hpp"
#include "mediagen/orders/reads.hpp"

#include <algorithm>
#include <cctype>
#include <stdexcept>

#include <nlohmann/json.hpp>

#include "order_row_store.hpp"
#include "mediagen/core/ascii.hpp"
#include "mediagen/db/async_pg.hpp"
#include "mediagen/db/pg.hpp"

namespace mediagen::orders {
namespace {

const db::Statement kItemSpeech{
    "orders_item_speech",
    "SELECT COALESCE(t.text, ''), COALESCE(i.timings::text, '[]') FROM order_items i"
    " JOIN orders o ON o.id = i.order_id AND o.user_id = $2"
    " LEFT JOIN order_item_texts t ON t.item_id = i.id WHERE i.id = $1::uuid"};

const db::Statement kOrder{"orders_read_one", "SELECT " MG_ORDER_COLUMNS " FROM orders WHERE id = $1::uuid"};

// Orders whose waiting chunks the workers take before this order's first waiting one (they
// claim by queued_at), plus one; NULL when none of its chunks waits or the order is past waiting.
// The order_items_queue index holds only waiting rows. The CASE keeps the count from running for
// an order that cannot wait.
#define MG_QUEUE_POSITION                                                                              \
  "SELECT CASE WHEN o.status IN ('created', 'pending') THEN ("                                         \
  "SELECT (SELECT count(DISTINCT q.order_id) FROM order_items q WHERE q.status = 'pending'"            \
  " AND q.queued_at < x.first AND q.order_id <> $1::uuid) + 1"                                         \
  " FROM (SELECT min(queued_at) AS first FROM order_items WHERE order_id = $1::uuid AND status = 'pending') x" \
  " WHERE x.first IS NOT NULL) END"

// GET /orders/{order}: the order, its items and its queue position in one statement, so one
// round trip and one snapshot (the order's 21 columns, then the item's 20, then the position; no
// item: one row with NULL item columns). Ordered by item chunk_index, created_at, attempt_number
// and id (their positions in the select list).
const db::Statement kOwnOrderWithItems{
    "orders_read_own_with_items",
    "SELECT o.*, i.*, p.position FROM (SELECT " MG_ORDER_COLUMNS
    " FROM orders WHERE id = $1::uuid AND user_id = $2) o"
    " CROSS JOIN LATERAL (" MG_QUEUE_POSITION " AS position) p"
    " LEFT JOIN LATERAL (SELECT " MG_ITEM_COLUMNS " FROM order_items WHERE order_id = $1::uuid) i ON true"
    " ORDER BY 25, 40, 28, 22"};

// The order_items_order index serves this scan and its order.
const db::Statement kItems{"orders_read_items",
                           "SELECT " MG_ITEM_COLUMNS " FROM order_items WHERE order_id = $1::uuid"
                           " ORDER BY chunk_index, created_at, attempt_number, id"};

// NULL parameters do not filter. A status filter has statements of its own so that its plan
// can use orders_owner_status; without one, orders_owner gives the order directly.
#define MG_ORDER_MATCH                                                                  \
  " FROM orders WHERE user_id = $1 AND ($2::uuid IS NULL OR template_id = $2::uuid)"  \
  " AND ($3::text[] IS NULL OR task_type = ANY ($3::text[]))"
#define MG_NEWEST_FIRST " ORDER BY created_at DESC, id DESC"

const db::Statement kCount{"orders_read_count", "SELECT count(*)" MG_ORDER_MATCH};
const db::Statement kCountStatus{"orders_read_count_status", "SELECT count(*)" MG_ORDER_MATCH " AND status = $4"};
const db::Statement kPage{"orders_read_page",
                          "SELECT " MG_ORDER_COLUMNS MG_ORDER_MATCH MG_NEWEST_FIRST " LIMIT $4 OFFSET $5"};
const db::Statement kPageStatus{
    "orders_read_page_status",
    "SELECT " MG_ORDER_COLUMNS MG_ORDER_MATCH " AND status = $4" MG_NEWEST_FIRST " LIMIT $5 OFFSET $6"};

// The owner check is part of the query: another account's item is simply not found.
const db::Statement kItemText{
    "orders_read_item_text",
    "SELECT t.text, i.current_text_length, i.original_text_length, i.free_length, i.billable_length,"
    " i.max_billable_length, i.max_raw_length, i.capacity_unit, i.raw_length"
    " FROM order_items i JOIN orders o ON o.id = i.order_id LEFT JOIN order_item_texts t ON t.item_id = i.id"
    " WHERE i.id = $2::uuid AND i.order_id = $1::uuid AND o.user_id = $3"};

template <class Field>
std::vector<std::string> paths_of(const Field& f) {
  std::vector<std::string> out;
  const nlohmann::json doc = nlohmann::json::parse(f.c_str(), nullptr, false);
  if (!doc.is_array()) return out;
  for (const auto& path : doc) {
    if (path.is_string()) out.push_back(path.get<std::string>());
  }
  return out;
}

// Values outside the CHECK constraints cannot be stored; reading one is a bug, not input.
template <class E>
E known(std::optional<E> value, const char* what) {
  if (!value) throw std::logic_error(std::string("unknown ") + what + " in the database");
  return *value;
}

template <class Field>
std::size_t size_of(const Field& f) {
  return static_cast<std::size_t>(f.template as<std::int64_t>());
}

}  // namespace

template <class Row>
Order order_from_row(const Row& r) {
  Order o;
  o.id = r[0].template as<std::string>();
  o.user_id = UserId{r[1].template as<std::int64_t>()};
  o.task_type = parse_task_type(r[2].c_str()).value_or(TaskType::tts);  // the column is the enum
  o.status = known(order_status_from_string(r[3].c_str()), "order status");
  o.service_key = r[4].template as<std::string>();
  o.template_id = db::optional_of<std::string>(r[5]);
  o.config_override_json = r[6].template as<std::string>();
  o.generation_mode = r[7].template as<std::string>();
  o.price_units = r[8].template as<std::int64_t>();
  o.tokens_from_quota = r[9].template as<std::int64_t>();
  o.tokens_from_payg = r[10].template as<std::int64_t>();
  o.result_files = paths_of(r[11]);
  o.result_service_files = paths_of(r[12]);
  o.result_duration_ms = db::optional_of<std::int64_t>(r[13]);
  o.retry_of = db::optional_of<std::string>(r[14]);
  o.stitching = r[15].template as<bool>();
  o.files_removed = r[16].template as<bool>();
  o.created_at = db::time_from_micros(r[17]);
  o.updated_at = db::time_from_micros(r[18]);
  if (!r[19].is_null()) o.failure_reason = known(order_failure_from_string(r[19].c_str()), "order failure reason");
  o.result_data_json = db::optional_of<std::string>(r[20]);
  return o;
}

template <class Row>
Item item_from_row(const Row& r) {
  Item i;
  i.id = r[0].template as<std::string>();
  i.order_id = r[1].template as<std::string>();
  i.type = known(item_type_from_string(r[2].c_str()), "item type");
  i.chunk_index = r[3].template as<int>();
  i.paragraph_index = db::optional_of<int>(r[4]);
  i.parent_item_id = db::optional_of<std::string>(r[5]);
  i.attempt_number = r[6].template as<int>();
  i.status = known(item_status_from_string(r[7].c_str()), "item status");
  i.failure_reason = db::optional_of<std::string>(r[8]);
  i.text_removed = r[9].template as<bool>();
  i.original_text_length = r[10].template as<int>();
  i.current_text_length = r[11].template as<int>();
  i.price_units = r[12].template as<std::int64_t>();
  i.consumed_units = r[13].template as<std::int64_t>();
  i.remaining_locked = r[14].template as<std::int64_t>();
  i.result_path = db::optional_of<std::string>(r[15]);
  i.result_size = db::optional_of<std::int64_t>(r[16]);
  i.duration_ms = db::optional_of<std::int64_t>(r[17]);
  i.created_at = db::time_from_micros(r[18]);
  i.updated_at = db::time_from_micros(r[19]);
  return i;
}

std::vector<Item> load_items(db::Db& db, db::Tx& tx, const OrderId& order_id) {
  std::vector<Item> out;
  const auto rows = db.exec(tx, kItems, order_id.str());
  out.reserve(rows.size());
  for (const auto& r : rows) out.push_back(item_from_row(r));
  return out;
}

std::optional<Order> load_order(db::Db& db, db::Tx& tx, const OrderId& order_id, bool with_items) {
  const auto rows = db.exec(tx, kOrder, order_id.str());
  if (rows.empty()) return std::nullopt;
  Order order = order_from_row(rows[0]);
  if (with_items) {
    // Read after the order row: items are then never older than the status shown beside them.
    order.items = load_items(db, tx, order_id);
    apply_item_flags(order, order.items);
  }
  return order;
}

namespace {

// The rows of kOwnOrderWithItems: the order, its items (flags set) and its queue position.
template <class Rows>
std::optional<Order> own_order_from_rows(const Rows& rows) {
  if (rows.empty()) return std::nullopt;
  Order found = order_from_row(rows[0].slice(0, kOrderColumns));
  for (const auto& r : rows) {
    if (!r[kOrderColumns].is_null()) found.items.push_back(item_from_row(r.slice(kOrderColumns, kOrderColumns + kItemColumns)));
  }
  apply_item_flags(found, found.items);
  found.queue_position = db::optional_of<std::int64_t>(rows[0][kOrderColumns + kItemColumns]);
  return found;
}

template <class Rows>
Result<ItemText> item_text_from_rows(const Rows& rows) {
  if (rows.empty()) return ApiError::not_found();
  const auto& r = rows[0];
  if (r[0].is_null()) return ApiError::refused(Reason::input_expired);
  ItemText out;
  out.text = r[0].template as<std::string>();
  out.fields.length = size_of(r[1]);
  out.fields.original_text_length = size_of(r[2]);
  out.fields.free_length = size_of(r[3]);
  out.fields.billable_length = size_of(r[4]);
  out.fields.max_billable_length = size_of(r[5]);
  out.fields.max_raw_length = size_of(r[6]);
  out.fields.capacity_unit = known(capacity_unit_from_string(r[7].c_str()), "capacity unit");
  out.fields.raw_length = size_of(r[8]);
  out.fields.surcharge_applies = out.fields.billable_length > out.fields.free_length;
  return out;
}

Result<Item> item_of(Result<Order> order, const ItemId& item_id) {
  if (!order) return order.error();
  for (auto& item : order->items) {
    if (item.id == item_id.str()) return std::move(item);  // both lowercase
  }
  return ApiError::not_found();
}

}  // namespace

Result<Order> find_own_order(db::Db& db, UserId user, const OrderId& order_id, bool with_items) {
  auto order = db::read(db, [&](db::Tx& tx) -> std::optional<Order> {
    if (with_items) return own_order_from_rows(db.exec(tx, kOwnOrderWithItems, order_id.str(), user.value));
    auto found = load_order(db, tx, order_id, /*with_items=*/false);
    // Another account's order is "not found" too: the answer never says whether an id exists.
    if (!found || found->user_id != user) return std::nullopt;
    return found;
  });
  if (!order) return ApiError::not_found();
  return std::move(*order);
}

boost::asio::awaitable<Result<Order>> find_own_order(db::AsyncPg& pg, UserId user, OrderId order_id) {
  auto order = own_order_from_rows(co_await pg.query(kOwnOrderWithItems, order_id.str(), user.value));
  if (!order) co_return ApiError::not_found();
  co_return std::move(*order);
}

boost::asio::awaitable<Result<Item>> find_own_item(db::AsyncPg& pg, UserId user, OrderId order_id, ItemId item_id) {
  co_return item_of(co_await find_own_order(pg, user, std::move(order_id)), item_id);
}

boost::asio::awaitable<Result<ItemText>> item_text(db::AsyncPg& pg, UserId user, OrderId order_id, ItemId item_id) {
  co_return item_text_from_rows(co_await pg.query(kItemText, order_id.str(), item_id.str(), user.value));
}

OrderPage list_orders(db::Db& db, UserId user, const OrderFilter& filter) {
  OrderPage out;
  out.page = filter.page;
  out.per_page = filter.per_page;
  std::optional<std::string> types;
  if (filter.task_types) {
    if (filter.task_types->empty()) return out;  // only unknown types: nothing can match
    std::vector<std::string> names;
    for (const TaskType t : *filter.task_types) names.emplace_back(task_type_name(t));
    types = db::text_array(names);
  }
  const std::optional<std::string> template_id =
      filter.template_id ? std::optional<std::string>(filter.template_id->str()) : std::nullopt;
  const std::optional<std::string> status =
      filter.status ? std::optional<std::string>(std::string(to_string(*filter.status))) : std::nullopt;
  db::transact(db, [&](db::Tx& tx) {
    const auto counted = status ? db.exec(tx, kCountStatus, user.value, template_id, types, *status)
                                : db.exec(tx, kCount, user.value, template_id, types);
    out.total = counted[0][0].template as<std::int64_t>();
    // Beyond the last page: an empty page (the offset is never computed, so it cannot overflow).
    if (filter.page - 1 < out.last_page() && out.total > 0) {
      const std::int64_t offset = (filter.page - 1) * filter.per_page;
      const auto rows =
          status ? db.exec(tx, kPageStatus, user.value, template_id, types, *status, filter.per_page, offset)
                 : db.exec(tx, kPage, user.value, template_id, types, filter.per_page, offset);
      out.items.reserve(rows.size());
      for (const auto& r : rows) out.items.push_back(order_from_row(r));
    }
  });
  return out;
}

template Order order_from_row(const pqxx::row&);
template Order order_from_row(const db::PgRow&);
template Item item_from_row(const pqxx::row&);
template Item item_from_row(const db::PgRow&);

std::optional<ItemSpeech> item_speech(db::Db& db, UserId user, const std::string& item_id) {
  return db::read(db, [&](db::Tx& tx) -> std::optional<ItemSpeech> {
    const auto rows = db.exec(tx, kItemSpeech, item_id, user.value);
    if (rows.empty()) return std::nullopt;
    return ItemSpeech{rows[0][0].as<std::string>(), rows[0][1].as<std::string>()};
  });
}

}  // namespace mediagen::orders
