#include "mediagen/workers/janitor.hpp"

#include "mediagen/core/log.hpp"
#include "mediagen/orders/order.hpp"
#include "mediagen/storage/object_store.hpp"

namespace mediagen::workers {

JanitorReport Janitor::run_once() {
  JanitorReport report;
  orders::WorkQueue queue(db_);

  for (const auto& order_id : queue.retention_due(options_.retention, options_.batch)) {
    auto removed = store_.remove_prefix(orders::order_storage_prefix(order_id));
    if (!removed) {
      // Kept for the next pass: an order is marked only once its files are really gone.
      log::warn("retention: files not removed", {{"order_id", order_id}, {"detail", removed.error().detail}});
      continue;
    }
    queue.mark_files_removed(order_id);
    ++report.files_removed;
  }

  report.changes = queue.compensate_abandoned(options_.compensate_after, options_.batch);
  report.compensated = static_cast<int>(report.changes.size());
  // A day is far past a quote's five minutes: a token that could still be shown is never forgotten.
  report.quotes_forgotten = queue.forget_spent_quotes(std::chrono::hours(24));
  return report;
}

}  // namespace mediagen::workers
