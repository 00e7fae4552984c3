// Settling a lost COMMIT by the transaction's own id (settled.hpp).
#include "mediagen/db/settled.hpp"

#include <chrono>
#include <thread>

#include "mediagen/db/pg.hpp"

namespace mediagen::db {
namespace {

const Statement kCurrent{"settled_current_xid", "SELECT txid_current()"};
const Statement kStatus{"settled_xid_status", "SELECT txid_status($1)"};

// How long an in-progress transaction is waited for: its backend ends it as soon as it reads
// the COMMIT or the closed socket, so this is a margin, far below any request's deadline.
constexpr auto kPatience = std::chrono::milliseconds(2000);
constexpr auto kPause = std::chrono::milliseconds(20);

}  // namespace

std::int64_t current_transaction_id(Db& db, Tx& tx) { return db.exec(tx, kCurrent)[0][0].as<std::int64_t>(); }

bool transaction_committed(Db& db, Tx& tx, std::int64_t xid) {
  const auto until = std::chrono::steady_clock::now() + kPatience;
  for (;;) {
    const auto field = db.exec(tx, kStatus, xid)[0][0];
    if (field.is_null()) throw Unavailable("the fate of an in-doubt commit is no longer known");
    const auto status = field.as<std::string>();
    if (status == "committed") return true;
    if (status == "aborted") return false;
    if (db.abandoned() || std::chrono::steady_clock::now() >= until) {
      throw Unavailable("an in-doubt commit is still in progress");
    }
    std::this_thread::sleep_for(kPause);
  }
}

}  // namespace mediagen::db
