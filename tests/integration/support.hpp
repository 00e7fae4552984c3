#pragma once
// Fixtures for tests against real PostgreSQL and Redis.
//
//   MEDIAGEN_TEST_PG_ADMIN_URL  postgresql://... of a role that may CREATE DATABASE
//   MEDIAGEN_TEST_REDIS_URL     redis://host:port/db
//
// A missing variable fails the test (it never skips). Every test gets a database of its own,
// mg_it_<random>, dropped at teardown, and a Redis key prefix mg_it_<random>: whose keys are
// deleted at teardown.
#include <gtest/gtest.h>

#include <optional>
#include <string>

#include "mediagen/core/counters.hpp"

namespace mediagen::test {

std::optional<std::string> env(const char* name);

// A fresh random lowercase hex string of 2 * bytes characters.
std::string random_hex(std::size_t bytes = 6);

// The admin URL with its database replaced: postgresql://u@h:p/postgres?x=y -> postgresql://u@h:p/<name>?x=y
std::string database_url(const std::string& admin_url, const std::string& name);

// Runs one statement on its own connection and returns the first column of the first row ("" if none).
std::string query_value(const std::string& url, const std::string& sql);

class ServicesTest : public ::testing::Test {
 protected:
  void SetUp() override;
  void TearDown() override;

  // Applies the embedded migrations to this test's database.
  void migrate();

  std::string admin_url;
  std::string redis_url;
  std::string db_name;
  std::string db_url;
  std::string prefix;  // Redis key prefix of this test
  InfraCounters counters;

 private:
  bool created_ = false;
};

// A ServicesTest whose database already has the schema.
class MigratedTest : public ServicesTest {
 protected:
  void SetUp() override {
    ServicesTest::SetUp();
    if (!HasFatalFailure()) migrate();
  }
};

}  // namespace mediagen::test
