#include "mediagen/orders/order.hpp"

#include "mediagen/db/pg.hpp"
#include "mediagen/db/settled.hpp"

namespace mediagen::orders {
namespace {

// The order named by the path's first segments; its files and its items' files. The order row
// is locked so that the delivery transition happens once.
const db::Statement kLockOwnOrder{
    "files_lock_order",
    "SELECT status, result_files ? $3, result_service_files ? $3,"
    " EXISTS (SELECT 1 FROM order_items WHERE order_id = $1::uuid AND result_path = $3)"
    " FROM orders WHERE id = $1::uuid AND user_id = $2 FOR UPDATE"};
const db::Statement kDelivered{
    "files_delivered",
    "UPDATE orders SET status = 'result_delivered', updated_at = now() WHERE id = $1::uuid AND status = 'completed'"};

}  // namespace

Result<void> authorize_download(db::Db& db, UserId user, std::string_view path) {
  // "orders/<uuid>/..."
  constexpr std::string_view kPrefix = "orders/";
  if (path.substr(0, kPrefix.size()) != kPrefix || path.size() < kPrefix.size() + 37 ||
      path[kPrefix.size() + 36] != '/') {
    return ApiError::not_found();
  }
  const auto parsed = OrderId::parse(path.substr(kPrefix.size(), 36));
  if (!parsed) return ApiError::not_found();
  const std::string& order_id = parsed->str();
  return db::transact_settled(db, [&](db::Tx& tx) -> Result<void> {
    const auto rows = db.exec(tx, kLockOwnOrder, order_id, user.value, std::string(path));
    if (rows.empty()) return ApiError::not_found();
    const bool result_file = rows[0][1].as<bool>();
    if (!result_file && !rows[0][2].as<bool>() && !rows[0][3].as<bool>()) return ApiError::not_found();
    if (result_file && rows[0][0].as<std::string>() == to_string(OrderStatus::completed)) db.exec(tx, kDelivered, order_id);
    return {};
  });
}

}  // namespace mediagen::orders
