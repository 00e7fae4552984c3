// The order channel's events: the payloads and the publisher thread (the SQL is in
// order_event_store.cpp).
#include "mediagen/orders/reads.hpp"

#include <chrono>
#include <condition_variable>
#include <deque>
#include <mutex>
#include <thread>

#include "mediagen/core/json_writer.hpp"
#include "mediagen/core/log.hpp"
#include "mediagen/core/time_zone.hpp"
#include "mediagen/core/uuid_id.hpp"
#include "mediagen/db/connection.hpp"
#include "mediagen/db/transact.hpp"
#include "mediagen/realtime/channel.hpp"
#include "mediagen/webhooks/webhooks.hpp"
#include "order_event_store.hpp"

namespace mediagen::orders {
namespace {

using std::chrono::steady_clock;

// After a lost connection, changes are dropped without an attempt for this long.
constexpr auto kReconnectPause = std::chrono::seconds(1);

realtime::Event order_event(const Order& order, std::int64_t seq) {
  JsonWriter out(order.result_files.empty() ? 192 : 320);
  out.begin_object();
  out.field("order_id", std::string_view(order.id));
  out.field("status", to_string(order.status));
  out.field("task_type", task_type_name(order.task_type));
  out.field("updated_at", std::string_view(TimeZone::utc().format(order.updated_at)));
  if (is_terminal(order.status)) {
    out.key("result");
    write_order_result(out, order);
    write_order_failure(out, order);
  }
  out.field("seq", seq);
  out.end_object();
  return realtime::Event{.channel = realtime::order_channel(order.id), .name = "order.updated", .data = out.take(),
                         .seq = seq};
}

realtime::Event item_event(const Item& item, std::int64_t seq) {
  JsonWriter out(256);
  out.begin_object();
  out.field("order_id", std::string_view(item.order_id));
  out.field("item_id", std::string_view(item.id));
  out.field("chunk_index", std::int64_t{item.chunk_index});
  out.field("item_type", to_string(item.type));
  out.field("status", to_string(item.status));
  out.field("attempt_number", std::int64_t{item.attempt_number});
  out.field("seq", seq);
  out.end_object();
  return realtime::Event{.channel = realtime::order_channel(item.order_id), .name = "order.item.updated",
                         .data = out.take(), .seq = seq};
}

// An event and whether webhook messages of its order wait for their data. Ids are checked by
// the caller.
struct Bumped {
  realtime::Event event;
  bool webhook_pending = false;
};

std::optional<Bumped> bump_order(db::Db& db, const std::string& order_id) {
  auto bumped = bump_order_seq(db, order_id);
  if (!bumped) return std::nullopt;
  return Bumped{order_event(bumped->value, bumped->seq), bumped->webhook_pending};
}

std::optional<Bumped> bump_item(db::Db& db, const std::string& order_id, const std::string& item_id) {
  auto bumped = bump_item_seq(db, order_id, item_id);
  if (!bumped) return std::nullopt;
  return Bumped{item_event(bumped->value, bumped->seq), bumped->webhook_pending};
}

// The publisher's connection and what it knows about it.
struct Link {
  db::Db db;
  bool session_ready = false;
  steady_clock::time_point pause_until{};
  std::size_t paused_drops = 0;  // changes dropped during the pause, not yet logged
};

const std::string& order_id_of(const OrderChange& c) {
  return c.subject == OrderChange::Subject::order && c.order_id.empty() ? c.id : c.order_id;
}

}  // namespace

struct OrderEventPublisher::State {
  std::string url;
  db::ConnectLimits limits;
  realtime::Broadcaster& broadcaster;
  InfraCounters& counters;
  std::function<void()> webhook_ready;

  std::mutex mutex;
  std::condition_variable cv;
  std::deque<OrderChange> queue;
  std::size_t overflow = 0;  // notes dropped for a full queue, not yet logged
  bool started = false;
  bool stopping = false;
  std::thread thread;

  State(std::string u, db::ConnectLimits l, realtime::Broadcaster& b, InfraCounters& c, std::function<void()> w)
      : url(std::move(u)), limits(l), broadcaster(b), counters(c), webhook_ready(std::move(w)) {}

  template <class It>
  void push(It first, It last) {
    {
      std::lock_guard lock(mutex);
      if (stopping) return;
      for (; first != last; ++first) {
        if (queue.size() >= kMaxQueued) {
          ++overflow;
        } else {
          queue.push_back(std::move(*first));
        }
      }
    }
    cv.notify_one();
  }

  void publish(Link& link, const OrderChange& change) {
    const std::string& order_id = order_id_of(change);
    const bool item = change.subject == OrderChange::Subject::item;
    // Changes come from every part that changes a status; a malformed id would only make
    // PostgreSQL refuse the cast, so it is dropped here, where changes enter the publisher.
    if (!OrderId::parse(order_id) || (item && !ItemId::parse(change.id))) {
      log::warn("order event dropped: malformed id", {{"order_id", order_id}, {"id", change.id}});
      return;
    }
    if (steady_clock::now() < link.pause_until) {
      ++link.paused_drops;
      return;
    }
    std::optional<Bumped> event;
    try {
      if (!link.session_ready) {
        prepare_event_session(link.db);
        link.session_ready = true;
        if (link.paused_drops > 0) {
          log::warn("order events dropped while the database was unavailable", {{"count", link.paused_drops}});
          link.paused_drops = 0;
        }
      }
      event = item ? bump_item(link.db, order_id, change.id) : bump_order(link.db, order_id);
    } catch (const db::Unavailable& e) {
      link.db.reset();
      link.session_ready = false;
      link.pause_until = steady_clock::now() + kReconnectPause;
      log::warn("order event dropped: database unavailable", {{"order_id", order_id}, {"error", e.what()}});
      return;
    } catch (const std::exception& e) {
      log::warn("order event dropped", {{"order_id", order_id}, {"error", e.what()}});
      return;
    }
    if (!event) {
      log::debug("order event dropped: no such order or item", {{"order_id", order_id}, {"id", change.id}});
      return;
    }
    // The webhook messages of this change take the event's data, seq and all. A failure here
    // leaves them to the deliverer, which renders them itself after its grace.
    if (event->webhook_pending) {
      try {
        if (webhooks::fill_order_event(link.db, order_id, item ? change.id : order_id, event->event.data) && webhook_ready) {
          webhook_ready();
        }
      } catch (const std::exception& e) {
        link.db.reset();
        link.session_ready = false;
        log::warn("webhook data not filled in", {{"order_id", order_id}, {"error", e.what()}});
      }
    }
    try {
      broadcaster.publish(std::move(event->event));
    } catch (const std::exception& e) {
      log::error("order event not published", {{"order_id", order_id}, {"error", e.what()}});
    }
  }

  // Until stop() and an empty queue.
  void run() {
    Link link{.db = db::Db(url, &counters, limits)};
    std::deque<OrderChange> batch;
    for (;;) {
      std::size_t dropped = 0;
      {
        std::unique_lock lock(mutex);
        cv.wait(lock, [&] { return stopping || !queue.empty(); });
        if (queue.empty()) return;
        batch.swap(queue);
        std::swap(dropped, overflow);
      }
      if (dropped > 0) {
        log::warn("order events dropped: queue full", {{"count", dropped}, {"limit", kMaxQueued}});
      }
      for (const auto& change : batch) publish(link, change);
      batch.clear();
    }
  }
};

OrderEventPublisher::OrderEventPublisher(std::string database_url, realtime::Broadcaster& broadcaster,
                                         InfraCounters& counters, db::ConnectLimits limits,
                                         std::function<void()> webhook_ready)
    : state_(std::make_unique<State>(std::move(database_url), limits, broadcaster, counters, std::move(webhook_ready))) {}

OrderEventPublisher::~OrderEventPublisher() { stop(); }

void OrderEventPublisher::start() {
  std::lock_guard lock(state_->mutex);
  if (state_->started || state_->stopping) return;
  state_->started = true;
  state_->thread = std::thread([s = state_.get()] { s->run(); });
}

void OrderEventPublisher::stop() {
  {
    std::lock_guard lock(state_->mutex);
    state_->stopping = true;
  }
  state_->cv.notify_all();
  if (state_->thread.joinable()) state_->thread.join();
}

void OrderEventPublisher::changed(OrderChange change) { state_->push(&change, &change + 1); }

void OrderEventPublisher::changed(std::vector<OrderChange> changes) { state_->push(changes.begin(), changes.end()); }

std::optional<std::string> webhook_event_data(db::Db& db, const std::string& order_id, const std::string& subject_id,
                                              bool item) {
  if (!OrderId::parse(order_id) || (item && !ItemId::parse(subject_id))) return std::nullopt;
  auto bumped = item ? bump_item(db, order_id, subject_id) : bump_order(db, order_id);
  if (!bumped) return std::nullopt;
  return std::move(bumped->event.data);
}

std::optional<realtime::Event> order_snapshot(db::Db& db, const OrderId& order_id) {
  auto current = read_order_seq(db, order_id.str());
  if (!current) return std::nullopt;
  return order_event(current->value, current->seq);
}

}  // namespace mediagen::orders
