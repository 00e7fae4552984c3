#include "mediagen/db/migrate.hpp"

#include <set>

#include "mediagen/db/pg.hpp"

namespace mediagen::db {
namespace {
// Arbitrary constant shared by every instance: "mediagen" in ASCII, folded into 63 bits.
constexpr long long kMigrationLockId = 0x6d65646961676eLL;
}  // namespace

MigrationReport migrate(Db& db, const std::vector<Migration>& migrations) {
  MigrationReport report;
  auto& conn = db.conn();
  {
    pqxx::nontransaction nt(conn);
    db.count();
    // A migration may rewrite a large table, and waits for another instance's migration: the
    // request-sized limits of the connection do not apply to this session.
    nt.exec("SET statement_timeout = 0");
    nt.exec("SET lock_timeout = 0");
    nt.exec("SELECT pg_advisory_lock(" + std::to_string(kMigrationLockId) + ")");
  }
  auto unlock = [&] {
    try {
      pqxx::nontransaction nt(conn);
      nt.exec("SELECT pg_advisory_unlock(" + std::to_string(kMigrationLockId) + ")");
      nt.exec("RESET statement_timeout");
      nt.exec("RESET lock_timeout");
    } catch (...) {
      db.reset();  // closing the session releases the lock as well
    }
  };
  try {
    std::set<int> done;
    transact(db, [&](Tx& tx) {
      db.exec_raw(tx,
                  "CREATE TABLE IF NOT EXISTS schema_migrations ("
                  " version integer PRIMARY KEY, name text NOT NULL,"
                  " applied_at timestamptz NOT NULL DEFAULT now())");
      for (const auto& row : db.exec_raw(tx, "SELECT version FROM schema_migrations")) {
        done.insert(row[0].as<int>());
      }
    });
    for (const auto& m : migrations) {
      if (done.count(m.version)) continue;
      transact(db, [&](Tx& tx) {
        db.exec_raw(tx, m.sql);
        db.count();
        tx.exec_params("INSERT INTO schema_migrations(version, name) VALUES ($1, $2)", m.version, m.name);
      });
      report.applied.push_back(m.version);
      done.insert(m.version);
    }
    report.current_version = done.empty() ? 0 : *done.rbegin();
  } catch (...) {
    unlock();
    throw;
  }
  unlock();
  return report;
}

}  // namespace mediagen::db
