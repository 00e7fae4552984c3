#pragma once
#include <string>
#include <vector>

#include "mediagen/db/db.hpp"

namespace mediagen::db {

struct Migration {
  int version;
  std::string name;
  std::string sql;
};

// The numbered files of migrations/, compiled into the binary.
const std::vector<Migration>& embedded_migrations();

struct MigrationReport {
  std::vector<int> applied;
  int current_version = 0;
};

// Applies pending migrations, each in its own transaction, under a PostgreSQL advisory lock so
// that several instances starting together apply each migration exactly once.
MigrationReport migrate(Db& db, const std::vector<Migration>& migrations);

}  // namespace mediagen::db
