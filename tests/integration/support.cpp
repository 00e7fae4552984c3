#include "support.hpp"

#include <cstdlib>
#include <pqxx/pqxx>

#include "mediagen/cache/redis.hpp"
#include "mediagen/core/crypto.hpp"
#include "mediagen/db/migrate.hpp"
#include "mediagen/db/pg.hpp"

namespace mediagen::test {

std::optional<std::string> env(const char* name) {
  const char* v = std::getenv(name);
  if (!v || !*v) return std::nullopt;
  return std::string(v);
}

std::string random_hex(std::size_t bytes) {
  const std::string raw = crypto::random_bytes(bytes);
  return crypto::to_hex(std::span<const std::uint8_t>(reinterpret_cast<const std::uint8_t*>(raw.data()), raw.size()));
}

std::string database_url(const std::string& admin_url, const std::string& name) {
  const auto scheme = admin_url.find("://");
  const std::size_t authority = scheme == std::string::npos ? 0 : scheme + 3;
  const auto query = admin_url.find('?', authority);
  const std::string base = admin_url.substr(0, query);
  const std::string tail = query == std::string::npos ? "" : admin_url.substr(query);
  const auto slash = base.find('/', authority);
  return (slash == std::string::npos ? base : base.substr(0, slash)) + "/" + name + tail;
}

std::string query_value(const std::string& url, const std::string& sql) {
  pqxx::connection conn(url);
  pqxx::nontransaction tx(conn);
  auto rows = tx.exec(sql);
  if (rows.empty() || rows[0].empty() || rows[0][0].is_null()) return "";
  return rows[0][0].as<std::string>();
}

void ServicesTest::SetUp() {
  auto admin = env("MEDIAGEN_TEST_PG_ADMIN_URL");
  auto redis = env("MEDIAGEN_TEST_REDIS_URL");
  if (!admin || !redis) {
    GTEST_FAIL() << "integration tests need real services: set MEDIAGEN_TEST_PG_ADMIN_URL "
                    "(postgresql://... of a role that may CREATE DATABASE) and MEDIAGEN_TEST_REDIS_URL "
                    "(redis://host:port/db); scripts/test starts both and exports them";
  }
  admin_url = *admin;
  redis_url = *redis;
  const std::string id = random_hex();
  db_name = "mg_it_" + id;
  prefix = "mg_it_" + id + ":";
  db_url = database_url(admin_url, db_name);
  try {
    pqxx::connection conn(admin_url);
    pqxx::nontransaction tx(conn);
    tx.exec("CREATE DATABASE " + db_name);
    created_ = true;
  } catch (const std::exception& e) {
    GTEST_FAIL() << "cannot create the test database on MEDIAGEN_TEST_PG_ADMIN_URL: " << e.what();
  }
}

void ServicesTest::TearDown() {
  if (created_) {
    try {
      pqxx::connection conn(admin_url);
      pqxx::nontransaction tx(conn);
      tx.exec("DROP DATABASE IF EXISTS " + db_name + " WITH (FORCE)");
    } catch (const std::exception& e) {
      ADD_FAILURE() << "cannot drop " << db_name << ": " << e.what();
    }
  }
  if (!redis_url.empty() && !prefix.empty()) {
    try {
      cache::Redis redis({.url = redis_url});
      std::string cursor = "0";
      do {
        auto page = redis.command({"SCAN", cursor, "MATCH", prefix + "*", "COUNT", "1000"});
        if (page.elements.size() != 2) break;
        cursor = page.elements[0].str;
        std::vector<std::string> del{"DEL"};
        for (const auto& k : page.elements[1].elements) del.push_back(k.str);
        if (del.size() > 1) redis.command(del);
      } while (cursor != "0");
    } catch (const std::exception& e) {
      ADD_FAILURE() << "cannot clean the Redis keys of " << prefix << ": " << e.what();
    }
  }
}

void ServicesTest::migrate() {
  db::Db db(db_url, &counters);
  db::migrate(db, db::embedded_migrations());
}

}  // namespace mediagen::test
