#pragma once
// Housekeeping of finished orders, run by the worker pool's sweeper:
//   retention     terminal orders older than `retention` lose their files (the whole storage
//                 prefix of the order) and their texts (input_text, items' text); the order keeps
//                 listing its paths, which then answer 404;
//   compensation  partially_completed orders left unchanged for `compensate_after` become
//                 compensated and what their escrow still holds goes back ("order_release");
//   quotes        spent top-up quotes older than a day are forgotten.
// Files are removed before the order is marked, so a crash in between only repeats the removal.
#include <chrono>

#include "mediagen/db/db.hpp"
#include "mediagen/orders/queue.hpp"

namespace mediagen::storage {
class ObjectStore;
}

namespace mediagen::workers {

struct JanitorOptions {
  std::chrono::seconds retention{std::chrono::hours(24 * 7)};
  std::chrono::seconds compensate_after{std::chrono::hours(24 * 3)};
  int batch = 100;  // orders per pass and kind
};

struct JanitorReport {
  int files_removed = 0;  // orders whose files were removed
  int compensated = 0;
  std::int64_t quotes_forgotten = 0;  // spent top-up quotes older than a day
  std::vector<orders::OrderChange> changes;
};

class Janitor {
 public:
  Janitor(db::Db& db, storage::ObjectStore& store, JanitorOptions options = {})
      : db_(db), store_(store), options_(options) {}

  JanitorReport run_once();

 private:
  db::Db& db_;
  storage::ObjectStore& store_;
  JanitorOptions options_;
};

}  // namespace mediagen::workers
