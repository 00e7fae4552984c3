#pragma once
// The PostgreSQL connection of one thread (libpqxx connections are not thread-safe), and the
// transaction as domain headers name it. Domain headers see only these forward declarations;
// stores include pg.hpp.
namespace pqxx {
class transaction_base;
}

namespace mediagen::db {
class Db;
// Any open transaction (db::transact's, or db::read's single statement); functions that must run
// inside the caller's transaction take it, so they cannot run outside one.
using Tx = pqxx::transaction_base;
}  // namespace mediagen::db
