#pragma once
// Ends an order whose answer could not carry all of its audio (orders::end_undelivered_order), on
// the blocking pool. Every compatible surface's speech answer goes through it, so the rule of
// what stays charged is one rule: the positions whose audio was completely written to the
// connection.
//
// Owned by the routes; a stream holds it weakly, so a stream destroyed after the routes (the
// process ending with answers still open) queues nothing on a pool that is gone.
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include <boost/asio/awaitable.hpp>

#include "mediagen/core/ids.hpp"
#include "mediagen/db/blocking_pool.hpp"
#include "mediagen/orders/reads.hpp"
#include "mediagen/orders/actions.hpp"

namespace mediagen::compat {

class OrderEnder : public std::enable_shared_from_this<OrderEnder> {
 public:
  using OnChanged = std::function<void(std::vector<orders::OrderChange>)>;
  OrderEnder(db::BlockingPool& pool, OnChanged on_changed) : pool_(pool), on_changed_(std::move(on_changed)) {}

  // Awaited: the order is final, its money back, when this returns (an answer is sent after it).
  // Never throws; a failed attempt is logged and queued once more (end_later).
  boost::asio::awaitable<void> end(UserId user, std::string order_id, int delivered);
  // Queued without waiting (a stream the server dropped: the client went away).
  void end_later(UserId user, std::string order_id, int delivered);

 private:
  void finish(db::Resources& r, UserId user, const std::string& order_id, int delivered);

  db::BlockingPool& pool_;
  OnChanged on_changed_;
};

}  // namespace mediagen::compat
