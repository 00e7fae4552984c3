#pragma once
// The PostgreSQL connection of one thread (libpqxx connections are not thread-safe).
// Domain headers see only this forward declaration; stores include pg.hpp.
namespace mediagen::db {
class Db;
}
