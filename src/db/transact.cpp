// The transaction runner behind db::transact and db::read (transact.hpp).
#include "mediagen/db/transact.hpp"

#include "mediagen/core/log.hpp"
#include "mediagen/core/transaction_mark.hpp"
#include "mediagen/db/pg.hpp"

namespace mediagen::db {

namespace {

// After a lost COMMIT, on a new connection: was the write kept? Throws Unavailable when the
// question cannot be asked either.
bool settle_in_doubt(Db& db, const CommitCheck& committed, const char* what) {
  db.reset();
  if (!committed) throw Unavailable(what);
  bool kept = false;
  run_read(db, [&](Tx& tx) { kept = committed(tx); });
  log::warn("commit in doubt", {{"error", what}, {"committed", kept}});
  return kept;
}

bool means_unavailable(const pqxx::sql_error& e) { return sqlstate_means_unavailable(e.sqlstate()); }

}  // namespace

void run_transaction(Db& db, const std::function<bool(Tx&)>& body, const CommitCheck& committed) {
  constexpr int kAttempts = 5;
  bool reopened = false;
  for (int attempt = 1;; ++attempt) {
    bool began = false;
    try {
      {
        const core::TransactionMark mark;
        db.transaction_forgotten();
        pqxx::work tx(db.conn());
        began = true;
        if (!body(tx)) {
          tx.abort();
          db.transaction_forgotten();
          return;
        }
        if (db.abandoned()) {
          // Nobody waits for this answer any more (deadline or shutdown): keep nothing of it.
          tx.abort();
          db.transaction_forgotten();
          throw Unavailable("the request was abandoned before its commit");
        }
        tx.commit();
      }
      // Past the transaction's mark: the commit released its locks, so the listener may reach Redis.
      db.transaction_committed();
      return;
    } catch (const pqxx::broken_connection& e) {
      db.transaction_forgotten();
      db.reset();
      // A connection PostgreSQL dropped while it sat idle (a restart) fails at BEGIN, before the
      // body ran anything: once, a new connection gets the work. A failure inside the body (a
      // watchdog's cut, a crash) is not retried: its caller may have stopped waiting.
      if (!began && !reopened) {
        reopened = true;
        continue;
      }
      throw Unavailable(e.what());
    } catch (const pqxx::in_doubt_error& e) {
      // It may have committed: its users are told now (a profile dropped for nothing is one
      // read), before settle_in_doubt can throw.
      db.transaction_committed();
      if (settle_in_doubt(db, committed, e.what())) return;
      if (attempt == kAttempts) throw Unavailable(e.what());
    } catch (const pqxx::transaction_rollback&) {
      db.transaction_forgotten();
      if (attempt == kAttempts) throw;
    } catch (const pqxx::sql_error& e) {
      db.transaction_forgotten();
      if (!means_unavailable(e)) throw;
      db.reset();
      throw Unavailable(e.what());
    } catch (...) {
      db.transaction_forgotten();
      throw;
    }
  }
}

void run_read(Db& db, const std::function<void(Tx&)>& body) {
  try {
    pqxx::nontransaction tx(db.conn());
    body(tx);
  } catch (const pqxx::broken_connection& e) {
    db.reset();
    throw Unavailable(e.what());
  } catch (const pqxx::sql_error& e) {
    if (!means_unavailable(e)) throw;
    db.reset();
    throw Unavailable(e.what());
  }
}

}  // namespace mediagen::db
