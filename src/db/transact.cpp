// The transaction runner behind db::transact and db::read (transact.hpp).
#include "mediagen/db/transact.hpp"

#include "mediagen/db/pg.hpp"

namespace mediagen::db {

void run_transaction(Db& db, const std::function<bool(Tx&)>& body) {
  constexpr int kAttempts = 5;
  for (int attempt = 1;; ++attempt) {
    try {
      pqxx::work tx(db.conn());
      if (body(tx)) {
        tx.commit();
      } else {
        tx.abort();
      }
      return;
    } catch (const pqxx::broken_connection& e) {
      db.reset();
      throw Unavailable(e.what());
    } catch (const pqxx::in_doubt_error& e) {
      db.reset();
      throw Unavailable(e.what());
    } catch (const pqxx::transaction_rollback&) {
      if (attempt == kAttempts) throw;
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
  }
}

}  // namespace mediagen::db
