#include "order_ender.hpp"

#include <chrono>
#include <exception>

#include "mediagen/core/log.hpp"
#include "mediagen/orders/order.hpp"
#include "mediagen/orders/actions.hpp"

namespace mediagen::compat {
namespace {

// Longer than a request's: the money of an order is at stake, and the answer is already lost.
constexpr std::chrono::milliseconds kEndDeadline{30'000};

}  // namespace

void OrderEnder::finish(db::Resources& r, UserId user, const std::string& order_id, int delivered) {
  auto changes = orders::end_undelivered_order(r.db, user, OrderId::of_row(order_id), delivered);
  if (!changes) {
    log::warn("an undelivered order could not be ended", {{"order_id", order_id}, {"status", changes.error().status}});
    return;
  }
  log::info("undelivered order ended", {{"order_id", order_id}, {"delivered_chunks", delivered},
                                        {"changed", !changes->empty()}});
  if (on_changed_ && !changes->empty()) on_changed_(std::move(*changes));
}

boost::asio::awaitable<void> OrderEnder::end(UserId user, std::string order_id, int delivered) {
  bool ended = false;
  try {
    // A named job, not a temporary inside the co_await: GCC 12 destroys a temporary lambda that
    // owns a string twice there (ASan: double free).
    auto job = [this, user, order_id, delivered](db::Resources& r) { finish(r, user, order_id, delivered); };
    co_await pool_.run(std::move(job), kEndDeadline);
    ended = true;
  } catch (const std::exception& e) {
    log::warn("ending an undelivered order failed; queued again", {{"order_id", order_id}, {"error", e.what()}});
  }
  if (!ended) end_later(user, std::move(order_id), delivered);
}

void OrderEnder::end_later(UserId user, std::string order_id, int delivered) {
  pool_.submit([self = shared_from_this(), user, order_id = std::move(order_id), delivered](db::Resources& r) {
    try {
      self->finish(r, user, order_id, delivered);
    } catch (const std::exception& e) {
      log::error("an undelivered order could not be ended", {{"order_id", order_id}, {"error", e.what()}});
    }
  });
}

}  // namespace mediagen::compat
