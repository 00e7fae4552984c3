#include "mediagen/compat/order_waiters.hpp"

#include <boost/asio/as_tuple.hpp>
#include <boost/asio/post.hpp>
#include <boost/asio/this_coro.hpp>
#include <boost/asio/use_awaitable.hpp>

namespace mediagen::compat {

namespace asio = boost::asio;

void OrderWaiters::notify(std::string_view order_id) {
  std::lock_guard lock(mutex_);
  auto [it, end] = timers_.equal_range(std::string(order_id));
  for (; it != end; ++it) {
    auto timer = it->second;
    // A timer is touched on its own executor only.
    asio::post(timer->get_executor(), [timer] { timer->cancel(); });
  }
}

asio::awaitable<void> OrderWaiters::wait(const std::string& order_id, std::chrono::milliseconds timeout) {
  auto executor = co_await asio::this_coro::executor;
  auto timer = std::make_shared<asio::steady_timer>(executor, timeout);
  decltype(timers_)::iterator entry;
  {
    std::lock_guard lock(mutex_);
    entry = timers_.emplace(order_id, timer);
  }
  co_await timer->async_wait(asio::as_tuple(asio::use_awaitable));
  std::lock_guard lock(mutex_);
  timers_.erase(entry);
}

std::size_t OrderWaiters::waiting() const {
  std::lock_guard lock(mutex_);
  return timers_.size();
}

}  // namespace mediagen::compat
