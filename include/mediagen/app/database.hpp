#pragma once
// The database part of an instance alone: one PostgreSQL connection, opened on first use, for
// what runs once and needs no other part (the migrations, the operator commands). A commit that
// changed users' profiles is announced to the running servers (a signed "profile <id>" each on
// the invalidation channel), so that none of them keeps showing the old GET /user.
#include "mediagen/core/config.hpp"
#include "mediagen/core/counters.hpp"
#include "mediagen/db/migrate.hpp"
#include "mediagen/db/connection.hpp"

namespace mediagen::app {

class Database {
 public:
  explicit Database(const Config& config);
  Database(const Database&) = delete;
  Database& operator=(const Database&) = delete;

  db::Db& db() { return db_; }
  // Applies the embedded migrations not yet applied.
  db::MigrationReport migrate() { return db::migrate(db_, db::embedded_migrations()); }

 private:
  InfraCounters counters_;
  db::Db db_;
};

}  // namespace mediagen::app
